-- +goose Up
-- An order's idempotency key binds it for 24 h (store.IdempotencyRetention);
-- housekeeping then clears the key so the agent may use it again. This
-- index keeps that sweep from scanning every order: only orders still
-- holding a key are in it.
CREATE INDEX orders_idempotency_key_created_idx ON orders (created_at) WHERE idempotency_key IS NOT NULL;

-- +goose Down
DROP INDEX orders_idempotency_key_created_idx;
