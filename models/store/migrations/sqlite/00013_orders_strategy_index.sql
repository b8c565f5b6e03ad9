-- +goose Up
-- A strategy's executions read its orders (StrategyOrders: by strategy;
-- StrategyTokenOrders: by strategy and token) on every run; without an
-- index each read scanned every order. Most orders are an agent's own
-- (strategy_id NULL), so the index leaves them out; "strategy_id = ?"
-- implies the index's condition, so both queries use it.
CREATE INDEX orders_strategy_token_idx ON orders (strategy_id, token_id) WHERE strategy_id IS NOT NULL;

-- +goose Down
DROP INDEX orders_strategy_token_idx;
