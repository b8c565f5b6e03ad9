-- +goose Up
-- Dashboard sign-in: server-side sessions, TOTP replay
-- protection, one-time backup codes, invitations and full passkey records.

-- A session row is keyed by the SHA-256 of its cookie token, so the table
-- alone does not let anyone ride a live session. user_id is '' until the
-- visitor signs in (the row then is replaced by a new one: ids rotate).
CREATE TABLE user_sessions (
    id               TEXT PRIMARY KEY,
    user_id          TEXT NOT NULL DEFAULT '',
    csrf_token       TEXT NOT NULL,
    auth_method      TEXT NOT NULL DEFAULT '',
    second_factor_at DATETIME,
    state            TEXT NOT NULL DEFAULT '',
    client_addr      TEXT NOT NULL DEFAULT '',
    user_agent       TEXT NOT NULL DEFAULT '',
    created_at       DATETIME NOT NULL,
    last_seen_at     DATETIME NOT NULL,
    expires_at       DATETIME NOT NULL
);
CREATE INDEX user_sessions_user_idx ON user_sessions (user_id, last_seen_at);
CREATE INDEX user_sessions_expiry_idx ON user_sessions (expires_at);

CREATE TABLE user_backup_codes (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash  TEXT NOT NULL,
    created_at DATETIME NOT NULL,
    used_at    DATETIME
);
CREATE UNIQUE INDEX user_backup_codes_hash_key ON user_backup_codes (user_id, code_hash);

CREATE TABLE user_invites (
    id         TEXT PRIMARY KEY,
    code_hash  TEXT NOT NULL,
    email      TEXT NOT NULL DEFAULT '',
    created_at DATETIME NOT NULL,
    expires_at DATETIME NOT NULL,
    used_at    DATETIME,
    used_by    TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX user_invites_code_key ON user_invites (code_hash);

-- The last accepted TOTP time step: a code is refused unless its step is
-- later, so a code is good once.
ALTER TABLE users ADD COLUMN totp_last_step BIGINT NOT NULL DEFAULT 0;
-- The whole WebAuthn credential record (flags, AAGUID, transports...) as
-- JSON, and the verified email of a social-login identity.
ALTER TABLE user_credentials ADD COLUMN webauthn_record TEXT NOT NULL DEFAULT '';
ALTER TABLE user_credentials ADD COLUMN oauth_email TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE user_credentials DROP COLUMN oauth_email;
ALTER TABLE user_credentials DROP COLUMN webauthn_record;
ALTER TABLE users DROP COLUMN totp_last_step;
DROP TABLE user_invites;
DROP TABLE user_backup_codes;
DROP TABLE user_sessions;
