-- +goose NO TRANSACTION
-- +goose Up
-- The dashboard lists a user's orders (and through them their fills)
-- across agents, newest first. Built CONCURRENTLY (hence outside a
-- transaction) so a large orders table keeps taking writes meanwhile.
CREATE INDEX CONCURRENTLY orders_user_created_idx ON orders (user_id, created_at);

-- +goose Down
DROP INDEX CONCURRENTLY orders_user_created_idx;
