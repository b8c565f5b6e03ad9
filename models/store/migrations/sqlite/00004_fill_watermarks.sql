-- +goose Up
-- Chain fill watchers (venue/chain.Watcher) persist the last block whose
-- fills were all delivered, per watcher key, so a restarted watcher
-- backfills by block range from there instead of losing what happened
-- while it was down.
CREATE TABLE fill_watermarks (
    key        TEXT PRIMARY KEY,
    block      BIGINT NOT NULL CHECK (block >= 0),
    updated_at DATETIME NOT NULL
);

-- +goose Down
DROP TABLE fill_watermarks;
