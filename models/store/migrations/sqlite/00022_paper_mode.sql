-- +goose Up
-- Paper and live agents side by side (docs/paper-trading.md). An agent's
-- mode is chosen when its link is approved and never changes; agents
-- approved before modes existed trade real money, hence 'live'. An order
-- carries its agent's mode so every read of it (API, dashboard, the
-- paper exchange's watcher) tells paper from live without a join.
ALTER TABLE agents ADD COLUMN mode TEXT NOT NULL DEFAULT 'live';
ALTER TABLE orders ADD COLUMN mode TEXT NOT NULL DEFAULT 'live';
-- A resting paper order's place in the venue's queue: the shares ahead of
-- it at its price when it was placed, drawn down by the venue's trades at
-- its price before any fills it.
ALTER TABLE orders ADD COLUMN paper_queue_micro BIGINT NOT NULL DEFAULT 0;
CREATE INDEX orders_paper_live_idx ON orders (mode, status) WHERE mode = 'paper';

-- A user's paper money: absent is the default (1,000 USDC); set or reset
-- from the dashboard, moved by paper fills and paper redemptions.
CREATE TABLE paper_balances (
    user_id       TEXT PRIMARY KEY,
    balance_micro BIGINT NOT NULL,
    updated_at    DATETIME NOT NULL
);

-- +goose Down
DROP TABLE paper_balances;
DROP INDEX orders_paper_live_idx;
ALTER TABLE orders DROP COLUMN paper_queue_micro;
ALTER TABLE orders DROP COLUMN mode;
ALTER TABLE agents DROP COLUMN mode;
