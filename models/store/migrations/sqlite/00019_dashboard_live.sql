-- +goose Up
-- An order's lifecycle for the dashboard's order page: one row per status
-- it entered, written by the database itself when the order is created
-- and whenever its status changes, so every path that moves an order (the
-- placement, a sync, a cancel, a reconciliation) is recorded, atomically
-- with the change.
CREATE TABLE order_transitions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    order_id    TEXT NOT NULL,
    from_status TEXT NOT NULL DEFAULT '',
    to_status   TEXT NOT NULL,
    time        DATETIME NOT NULL
);
CREATE INDEX order_transitions_order_idx ON order_transitions (order_id, id);

-- +goose StatementBegin
CREATE TRIGGER order_transitions_created AFTER INSERT ON orders
BEGIN
    INSERT INTO order_transitions (order_id, from_status, to_status, time)
    VALUES (NEW.id, '', NEW.status, NEW.created_at);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER order_transitions_changed AFTER UPDATE OF status ON orders
WHEN OLD.status <> NEW.status
BEGIN
    INSERT INTO order_transitions (order_id, from_status, to_status, time)
    VALUES (NEW.id, OLD.status, NEW.status, NEW.updated_at);
END;
-- +goose StatementEnd

-- Notifications: what the user chose to be told of (kinds, space-separated:
-- fill, strategy_error, sign_in, agent_linked), and where to send it (a
-- webhook URL and its signing secret, sealed by models/vault with the
-- binding "webhook-secret|<user id>|").
CREATE TABLE notification_settings (
    user_id                    TEXT PRIMARY KEY,
    kinds                      TEXT NOT NULL DEFAULT '',
    webhook_url                TEXT NOT NULL DEFAULT '',
    webhook_secret_ciphertext  BLOB,
    webhook_secret_nonce       BLOB,
    webhook_secret_key_version INTEGER NOT NULL DEFAULT 0,
    updated_at                 DATETIME NOT NULL
);

-- One row per notification, written in the transaction of what it tells
-- of. webhook is '' (no webhook), 'pending' (to be sent: the outbox the
-- dispatcher starts delivery workflows from), 'sending', 'delivered' or
-- 'failed'.
CREATE TABLE notifications (
    id               TEXT PRIMARY KEY,
    user_id          TEXT NOT NULL,
    kind             TEXT NOT NULL,
    title            TEXT NOT NULL,
    body             TEXT NOT NULL DEFAULT '',
    link             TEXT NOT NULL DEFAULT '',
    data             TEXT NOT NULL DEFAULT '',
    created_at       DATETIME NOT NULL,
    read_at          DATETIME,
    webhook          TEXT NOT NULL DEFAULT '',
    webhook_attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX notifications_user_idx ON notifications (user_id, created_at);
CREATE INDEX notifications_pending_idx ON notifications (created_at) WHERE webhook = 'pending';

-- The webhook delivery log: one row per attempt.
CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    notification_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    attempt         INTEGER NOT NULL,
    time            DATETIME NOT NULL,
    url             TEXT NOT NULL,
    status_code     INTEGER NOT NULL DEFAULT 0,
    error           TEXT NOT NULL DEFAULT '',
    duration_ms     BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX webhook_deliveries_user_idx ON webhook_deliveries (user_id, time);
CREATE INDEX webhook_deliveries_notification_idx ON webhook_deliveries (notification_id, attempt);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE notifications;
DROP TABLE notification_settings;
DROP TRIGGER order_transitions_changed;
DROP TRIGGER order_transitions_created;
DROP TABLE order_transitions;
