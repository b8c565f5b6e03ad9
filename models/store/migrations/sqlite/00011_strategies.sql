-- +goose Up
-- Strategies as durable workflows (issue 15). The strategy row is the
-- source of truth the workflow's activities read and write; the workflow
-- is its one writer after creation.
--
-- created_by: who created it (agent: the API, expires 24 h after creation
-- unless extended); paused_by: agent or user when PAUSED; ended_reason:
-- why it became COMPLETED or CANCELLED; executions: the last execution
-- number used (idempotency keys derive from it); token_id: the token the
-- strategy trades now (marketQuery resolved); open_size_micro: shares its
-- own buys hold (BUY_LOW_SELL_HIGH sells only those); triggers: the price
-- conditions armed for it, JSON, rebuilt into the worker's price feed at
-- start.
ALTER TABLE strategies ADD COLUMN created_by TEXT NOT NULL DEFAULT 'agent';
ALTER TABLE strategies ADD COLUMN paused_by TEXT NOT NULL DEFAULT '';
ALTER TABLE strategies ADD COLUMN ended_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE strategies ADD COLUMN last_error TEXT NOT NULL DEFAULT '';
ALTER TABLE strategies ADD COLUMN last_evaluated_at DATETIME;
ALTER TABLE strategies ADD COLUMN next_evaluation_at DATETIME;
ALTER TABLE strategies ADD COLUMN executions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE strategies ADD COLUMN token_id TEXT NOT NULL DEFAULT '';
ALTER TABLE strategies ADD COLUMN open_size_micro BIGINT NOT NULL DEFAULT 0;
ALTER TABLE strategies ADD COLUMN triggers TEXT NOT NULL DEFAULT '';
CREATE INDEX strategies_status_idx ON strategies (status);

-- One row per execution: seq is the execution number (unique per
-- strategy, so a retried execution records once).
ALTER TABLE strategy_executions ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE strategy_executions ADD COLUMN action TEXT NOT NULL DEFAULT '';
ALTER TABLE strategy_executions ADD COLUMN reason TEXT NOT NULL DEFAULT '';
ALTER TABLE strategy_executions ADD COLUMN token_id TEXT NOT NULL DEFAULT '';
ALTER TABLE strategy_executions ADD COLUMN side TEXT NOT NULL DEFAULT '';
ALTER TABLE strategy_executions ADD COLUMN price_micro BIGINT NOT NULL DEFAULT 0;
ALTER TABLE strategy_executions ADD COLUMN size_micro BIGINT NOT NULL DEFAULT 0;
ALTER TABLE strategy_executions ADD COLUMN amount_micro BIGINT NOT NULL DEFAULT 0;
ALTER TABLE strategy_executions ADD COLUMN order_status TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX strategy_executions_seq_key ON strategy_executions (strategy_id, seq) WHERE seq > 0;

-- +goose Down
DROP INDEX strategy_executions_seq_key;
ALTER TABLE strategy_executions DROP COLUMN order_status;
ALTER TABLE strategy_executions DROP COLUMN amount_micro;
ALTER TABLE strategy_executions DROP COLUMN size_micro;
ALTER TABLE strategy_executions DROP COLUMN price_micro;
ALTER TABLE strategy_executions DROP COLUMN side;
ALTER TABLE strategy_executions DROP COLUMN token_id;
ALTER TABLE strategy_executions DROP COLUMN reason;
ALTER TABLE strategy_executions DROP COLUMN action;
ALTER TABLE strategy_executions DROP COLUMN seq;
DROP INDEX strategies_status_idx;
ALTER TABLE strategies DROP COLUMN triggers;
ALTER TABLE strategies DROP COLUMN open_size_micro;
ALTER TABLE strategies DROP COLUMN token_id;
ALTER TABLE strategies DROP COLUMN executions;
ALTER TABLE strategies DROP COLUMN next_evaluation_at;
ALTER TABLE strategies DROP COLUMN last_evaluated_at;
ALTER TABLE strategies DROP COLUMN last_error;
ALTER TABLE strategies DROP COLUMN ended_reason;
ALTER TABLE strategies DROP COLUMN paused_by;
ALTER TABLE strategies DROP COLUMN created_by;
