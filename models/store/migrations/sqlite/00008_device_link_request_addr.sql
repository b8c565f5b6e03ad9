-- +goose Up
-- The client address that asked for the device code, shown to the user on
-- the /link confirmation page next to the agent's name, the time and the
-- scopes, so that a code sent by someone else (RFC 8628 section 5.4,
-- remote phishing) can be recognised before it is approved. Links made
-- before this column existed show it as unknown ('').
ALTER TABLE device_links ADD COLUMN request_addr TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE device_links DROP COLUMN request_addr;
