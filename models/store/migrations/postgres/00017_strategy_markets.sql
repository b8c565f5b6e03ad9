-- +goose Up
-- Strategies name their market: the question, outcome, slug and end date
-- of the token a strategy trades now (a marketQuery moves it from window
-- to window) and of the token each execution acted on, so answers and the
-- dashboard show a market, not a 77-digit token id. market_check_at is
-- when the strategy's workflow next looks at its market (its end date):
-- a marketQuery is resolved again, a tokenId strategy ends once its
-- market no longer trades. An execution also records what its order
-- filled (size and average price) when it was recorded.
ALTER TABLE strategies ADD COLUMN market_question TEXT NOT NULL DEFAULT '';
ALTER TABLE strategies ADD COLUMN market_outcome TEXT NOT NULL DEFAULT '';
ALTER TABLE strategies ADD COLUMN market_slug TEXT NOT NULL DEFAULT '';
ALTER TABLE strategies ADD COLUMN market_end_date TIMESTAMPTZ;
ALTER TABLE strategies ADD COLUMN market_check_at TIMESTAMPTZ;
ALTER TABLE strategy_executions ADD COLUMN market_question TEXT NOT NULL DEFAULT '';
ALTER TABLE strategy_executions ADD COLUMN market_outcome TEXT NOT NULL DEFAULT '';
ALTER TABLE strategy_executions ADD COLUMN market_slug TEXT NOT NULL DEFAULT '';
ALTER TABLE strategy_executions ADD COLUMN market_end_date TIMESTAMPTZ;
ALTER TABLE strategy_executions ADD COLUMN filled_size_micro BIGINT NOT NULL DEFAULT 0;
ALTER TABLE strategy_executions ADD COLUMN avg_fill_price_micro BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE strategy_executions DROP COLUMN avg_fill_price_micro;
ALTER TABLE strategy_executions DROP COLUMN filled_size_micro;
ALTER TABLE strategy_executions DROP COLUMN market_end_date;
ALTER TABLE strategy_executions DROP COLUMN market_slug;
ALTER TABLE strategy_executions DROP COLUMN market_outcome;
ALTER TABLE strategy_executions DROP COLUMN market_question;
ALTER TABLE strategies DROP COLUMN market_check_at;
ALTER TABLE strategies DROP COLUMN market_end_date;
ALTER TABLE strategies DROP COLUMN market_slug;
ALTER TABLE strategies DROP COLUMN market_outcome;
ALTER TABLE strategies DROP COLUMN market_question;
