-- +goose Up
-- The per-agent event log (models/events): fills and strategy events,
-- appended in the transaction of the change that causes them and reported
-- once per API key by GET /heartbeat.
--
-- agent_event_heads holds each agent's last event number. An append bumps
-- it and inserts the event in one transaction, so the head row's lock
-- makes an agent's events commit in number order, with no gaps: every
-- event up to a committed head is visible, and a reader that claims up to
-- the head can never skip one that commits later.
CREATE TABLE agent_event_heads (
    agent_id TEXT PRIMARY KEY,
    last_seq BIGINT NOT NULL CHECK (last_seq >= 0)
);

CREATE TABLE agent_events (
    agent_id      TEXT NOT NULL,
    seq           BIGINT NOT NULL,
    user_id       TEXT NOT NULL DEFAULT '',
    type          TEXT NOT NULL,
    time          TIMESTAMPTZ NOT NULL,
    order_id      TEXT NOT NULL DEFAULT '',
    fill_id       TEXT NOT NULL DEFAULT '',
    strategy_id   TEXT NOT NULL DEFAULT '',
    strategy_type TEXT NOT NULL DEFAULT '',
    actor         TEXT NOT NULL DEFAULT '',
    summary       TEXT NOT NULL DEFAULT '',
    details       TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (agent_id, seq)
);
CREATE INDEX agent_events_created_idx ON agent_events (created_at);

-- One row per API key that has called the heartbeat: the count and last
-- time (the dashboard's "last heartbeat"), and event_seq, the agent event
-- number up to which this key has been told. A heartbeat moves event_seq
-- by compare-and-set, so two concurrent heartbeats never report one event
-- twice.
CREATE TABLE heartbeat_cursors (
    api_key_id    TEXT PRIMARY KEY,
    agent_id      TEXT NOT NULL,
    event_seq     BIGINT NOT NULL DEFAULT 0,
    beats         BIGINT NOT NULL DEFAULT 0,
    last_at       TIMESTAMPTZ,
    skill_version INTEGER
);
CREATE INDEX heartbeat_cursors_agent_idx ON heartbeat_cursors (agent_id);

-- The heartbeat counts an agent's live orders on every call.
CREATE INDEX orders_agent_status_idx ON orders (agent_id, status);

-- +goose Down
DROP INDEX orders_agent_status_idx;
DROP TABLE heartbeat_cursors;
DROP TABLE agent_events;
DROP TABLE agent_event_heads;
