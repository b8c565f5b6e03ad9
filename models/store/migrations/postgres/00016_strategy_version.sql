-- +goose Up
-- A strategy's version counts the changes of what it does (its status, its
-- config, budget, token and expiry). A change sent to its workflow carries
-- a proof bound to the version it was made for (models/intent), so a
-- change recorded in the workflow's history cannot be sent again once the
-- strategy has moved on.
ALTER TABLE strategies ADD COLUMN version BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE strategies DROP COLUMN version;
