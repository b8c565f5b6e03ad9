-- +goose Up
-- An execution that placed an order is recorded when it is decided, its
-- outcome open until the order settles (strategies.Engine.Settle amends
-- it): Settle finds the execution by its order.
ALTER TABLE strategy_executions ADD COLUMN open BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX strategy_executions_order_idx ON strategy_executions (order_id);

-- +goose Down
DROP INDEX strategy_executions_order_idx;
ALTER TABLE strategy_executions DROP COLUMN open;
