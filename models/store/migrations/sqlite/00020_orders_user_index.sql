-- +goose Up
-- The dashboard lists a user's orders (and through them their fills)
-- across agents, newest first.
CREATE INDEX orders_user_created_idx ON orders (user_id, created_at);

-- +goose Down
DROP INDEX orders_user_created_idx;
