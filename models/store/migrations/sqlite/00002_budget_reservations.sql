-- +goose Up
-- One row per order holding agent budget (see models/budget). ref is the
-- order ID; its uniqueness makes reserve/release/convert idempotent.
CREATE TABLE budget_reservations (
    id           TEXT PRIMARY KEY,
    ref          TEXT NOT NULL,
    agent_id     TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    user_id      TEXT NOT NULL,
    amount_micro BIGINT NOT NULL,
    held_micro   BIGINT NOT NULL DEFAULT 0,
    used_micro   BIGINT NOT NULL DEFAULT 0,
    status       TEXT NOT NULL,
    created_at   DATETIME NOT NULL,
    updated_at   DATETIME NOT NULL
);
CREATE UNIQUE INDEX budget_reservations_ref_key ON budget_reservations (ref);
CREATE INDEX budget_reservations_agent_idx ON budget_reservations (agent_id, status);
CREATE INDEX budget_reservations_user_idx ON budget_reservations (user_id, status);

-- +goose Down
DROP TABLE budget_reservations;
