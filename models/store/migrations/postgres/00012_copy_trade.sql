-- +goose Up
-- COPY_TRADE (issue 16). copy_follows: which wallet a strategy copies and
-- from which block. copy_trades: every event of a target recorded for each
-- strategy copying it BEFORE its copy is placed; the unique key makes a
-- copy happen at most once per (strategy, transaction, log), and the copy
-- order's idempotency key derives from the same pair. seq is the strategy
-- execution that handled it (NULL while pending). copy_watermarks: how far
-- each target's watcher dispatched (block, log index; -1 = whole block).
CREATE TABLE copy_follows (
    strategy_id TEXT PRIMARY KEY REFERENCES strategies (id) ON DELETE CASCADE,
    target      TEXT NOT NULL,
    from_block  BIGINT NOT NULL DEFAULT 0,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX copy_follows_target_idx ON copy_follows (target);

CREATE TABLE copy_trades (
    id           BIGSERIAL PRIMARY KEY,
    strategy_id  TEXT NOT NULL REFERENCES strategies (id) ON DELETE CASCADE,
    tx_hash      TEXT NOT NULL,
    log_index    BIGINT NOT NULL,
    target       TEXT NOT NULL,
    block        BIGINT NOT NULL,
    kind         TEXT NOT NULL,
    token_id     TEXT NOT NULL DEFAULT '',
    side         TEXT NOT NULL DEFAULT '',
    shares_micro BIGINT NOT NULL DEFAULT 0,
    price_micro  BIGINT NOT NULL DEFAULT 0,
    reason       TEXT NOT NULL DEFAULT '',
    seq          INTEGER,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX copy_trades_source_key ON copy_trades (strategy_id, tx_hash, log_index);
CREATE UNIQUE INDEX copy_trades_seq_key ON copy_trades (strategy_id, seq) WHERE seq IS NOT NULL;

CREATE TABLE copy_watermarks (
    target     TEXT PRIMARY KEY,
    block      BIGINT NOT NULL CHECK (block >= 0),
    log_index  BIGINT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE copy_watermarks;
DROP INDEX copy_trades_seq_key;
DROP INDEX copy_trades_source_key;
DROP TABLE copy_trades;
DROP INDEX copy_follows_target_idx;
DROP TABLE copy_follows;
