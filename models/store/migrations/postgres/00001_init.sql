-- +goose Up
CREATE TABLE users (
    id                     TEXT PRIMARY KEY,
    email                  TEXT NOT NULL,
    password_hash          TEXT NOT NULL DEFAULT '',
    totp_secret_ciphertext BYTEA,
    totp_secret_nonce      BYTEA,
    totp_key_version       INTEGER NOT NULL DEFAULT 0,
    totp_enabled           BOOLEAN NOT NULL DEFAULT FALSE,
    backup_code_hashes     TEXT NOT NULL DEFAULT '',
    created_at             TIMESTAMPTZ NOT NULL,
    updated_at             TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX users_email_key ON users (email);

CREATE TABLE user_credentials (
    id                     TEXT PRIMARY KEY,
    user_id                TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind                   TEXT NOT NULL,
    webauthn_credential_id BYTEA,
    webauthn_public_key    BYTEA,
    webauthn_sign_count    BIGINT NOT NULL DEFAULT 0,
    oauth_provider         TEXT,
    oauth_subject          TEXT,
    name                   TEXT NOT NULL DEFAULT '',
    created_at             TIMESTAMPTZ NOT NULL,
    last_used_at           TIMESTAMPTZ
);
CREATE INDEX user_credentials_user_idx ON user_credentials (user_id);
CREATE UNIQUE INDEX user_credentials_webauthn_key ON user_credentials (webauthn_credential_id);
CREATE UNIQUE INDEX user_credentials_oauth_key ON user_credentials (oauth_provider, oauth_subject);

CREATE TABLE wallets (
    id                    TEXT PRIMARY KEY,
    user_id               TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind                  TEXT NOT NULL,
    eoa_address           TEXT NOT NULL,
    funder_address        TEXT NOT NULL,
    signature_type        INTEGER NOT NULL DEFAULT 0,
    key_ciphertext        BYTEA NOT NULL,
    key_nonce             BYTEA NOT NULL,
    key_version           INTEGER NOT NULL,
    api_creds_ciphertext  BYTEA,
    api_creds_nonce       BYTEA,
    api_creds_key_version INTEGER NOT NULL DEFAULT 0,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX wallets_user_key ON wallets (user_id);

CREATE TABLE agents (
    id                       TEXT PRIMARY KEY,
    user_id                  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name                     TEXT NOT NULL,
    status                   TEXT NOT NULL,
    scopes                   TEXT NOT NULL DEFAULT '',
    budget_limit_micro       BIGINT,
    budget_percent_bps       INTEGER,
    max_position_value_micro BIGINT,
    heartbeat_interval_ms    BIGINT NOT NULL,
    active_hours_start       TEXT,
    active_hours_end         TEXT,
    active_hours_timezone    TEXT,
    rate_limit_per_minute    INTEGER NOT NULL,
    created_at               TIMESTAMPTZ NOT NULL,
    updated_at               TIMESTAMPTZ NOT NULL,
    revoked_at               TIMESTAMPTZ
);
CREATE INDEX agents_user_idx ON agents (user_id, created_at);

CREATE TABLE api_keys (
    id             TEXT PRIMARY KEY,
    agent_id       TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    user_id        TEXT NOT NULL,
    hash           TEXT NOT NULL,
    display_prefix TEXT NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    last_used_at   TIMESTAMPTZ,
    revoked_at     TIMESTAMPTZ
);
CREATE UNIQUE INDEX api_keys_hash_key ON api_keys (hash);
CREATE INDEX api_keys_agent_idx ON api_keys (agent_id);

CREATE TABLE device_links (
    id               TEXT PRIMARY KEY,
    device_code_hash TEXT NOT NULL,
    user_code        TEXT NOT NULL,
    agent_name       TEXT NOT NULL,
    status           TEXT NOT NULL,
    user_id          TEXT,
    agent_id         TEXT,
    expires_at       TIMESTAMPTZ NOT NULL,
    interval_seconds INTEGER NOT NULL,
    last_poll_at     TIMESTAMPTZ,
    created_at       TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX device_links_device_code_key ON device_links (device_code_hash);
CREATE UNIQUE INDEX device_links_user_code_key ON device_links (user_code);
CREATE INDEX device_links_status_expiry_idx ON device_links (status, expires_at);

CREATE TABLE orders (
    id                   TEXT PRIMARY KEY,
    agent_id             TEXT NOT NULL,
    user_id              TEXT NOT NULL,
    wallet_id            TEXT NOT NULL,
    token_id             TEXT NOT NULL,
    condition_id         TEXT NOT NULL DEFAULT '',
    market_question      TEXT NOT NULL DEFAULT '',
    outcome              TEXT NOT NULL DEFAULT '',
    side                 TEXT NOT NULL,
    type                 TEXT NOT NULL,
    price_micro          BIGINT NOT NULL,
    size_micro           BIGINT NOT NULL,
    filled_size_micro    BIGINT NOT NULL DEFAULT 0,
    avg_fill_price_micro BIGINT NOT NULL DEFAULT 0,
    status               TEXT NOT NULL,
    venue_order_id       TEXT NOT NULL DEFAULT '',
    idempotency_key      TEXT,
    reserved_micro       BIGINT NOT NULL DEFAULT 0,
    failure_reason       TEXT NOT NULL DEFAULT '',
    strategy_id          TEXT,
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL,
    filled_at            TIMESTAMPTZ
);
CREATE UNIQUE INDEX orders_agent_idempotency_key ON orders (agent_id, idempotency_key);
CREATE INDEX orders_agent_created_idx ON orders (agent_id, created_at);
CREATE INDEX orders_status_idx ON orders (status);
CREATE INDEX orders_venue_order_idx ON orders (venue_order_id);

CREATE TABLE fills (
    id             TEXT PRIMARY KEY,
    order_id       TEXT NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    venue_trade_id TEXT NOT NULL,
    price_micro    BIGINT NOT NULL,
    size_micro     BIGINT NOT NULL,
    fee_micro      BIGINT NOT NULL DEFAULT 0,
    tx_hash        TEXT NOT NULL DEFAULT '',
    time           TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX fills_order_trade_key ON fills (order_id, venue_trade_id);

CREATE TABLE positions (
    id                 TEXT PRIMARY KEY,
    agent_id           TEXT NOT NULL,
    user_id            TEXT NOT NULL,
    token_id           TEXT NOT NULL,
    condition_id       TEXT NOT NULL DEFAULT '',
    question           TEXT NOT NULL DEFAULT '',
    outcome            TEXT NOT NULL DEFAULT '',
    size_micro         BIGINT NOT NULL DEFAULT 0,
    avg_entry_micro    BIGINT NOT NULL DEFAULT 0,
    realized_pnl_micro BIGINT NOT NULL DEFAULT 0,
    status             TEXT NOT NULL,
    neg_risk           BOOLEAN NOT NULL DEFAULT FALSE,
    end_date           TIMESTAMPTZ,
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX positions_agent_token_key ON positions (agent_id, token_id);
CREATE INDEX positions_status_idx ON positions (status);

CREATE TABLE strategies (
    id                   TEXT PRIMARY KEY,
    agent_id             TEXT NOT NULL,
    user_id              TEXT NOT NULL,
    type                 TEXT NOT NULL,
    config               TEXT NOT NULL,
    max_budget_micro     BIGINT NOT NULL,
    budget_used_micro    BIGINT NOT NULL DEFAULT 0,
    status               TEXT NOT NULL,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    expires_at           TIMESTAMPTZ,
    workflow_id          TEXT NOT NULL DEFAULT '',
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL
);
CREATE INDEX strategies_agent_status_idx ON strategies (agent_id, status);

CREATE TABLE strategy_executions (
    id          TEXT PRIMARY KEY,
    strategy_id TEXT NOT NULL REFERENCES strategies (id) ON DELETE CASCADE,
    time        TIMESTAMPTZ NOT NULL,
    kind        TEXT NOT NULL,
    detail      TEXT NOT NULL DEFAULT '',
    order_id    TEXT
);
CREATE INDEX strategy_executions_strategy_time_idx ON strategy_executions (strategy_id, time);

CREATE TABLE heartbeats (
    id            TEXT PRIMARY KEY,
    agent_id      TEXT NOT NULL,
    api_key_id    TEXT NOT NULL,
    time          TIMESTAMPTZ NOT NULL,
    skill_version INTEGER
);
CREATE INDEX heartbeats_key_time_idx ON heartbeats (api_key_id, time);
CREATE INDEX heartbeats_agent_time_idx ON heartbeats (agent_id, time);

-- audit_log has no foreign keys on purpose: entries outlive what they name.
CREATE TABLE audit_log (
    id          TEXT PRIMARY KEY,
    time        TIMESTAMPTZ NOT NULL,
    user_id     TEXT NOT NULL DEFAULT '',
    agent_id    TEXT NOT NULL DEFAULT '',
    action      TEXT NOT NULL,
    target      TEXT NOT NULL DEFAULT '',
    result      TEXT NOT NULL,
    client_addr TEXT NOT NULL DEFAULT '',
    detail      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_time_idx ON audit_log (time, id);
CREATE INDEX audit_log_user_time_idx ON audit_log (user_id, time);
CREATE INDEX audit_log_agent_time_idx ON audit_log (agent_id, time);

-- Append-only: the database itself refuses to change or delete entries.
-- +goose StatementBegin
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();

CREATE TABLE idempotency_records (
    agent_id        TEXT NOT NULL,
    key             TEXT NOT NULL,
    request_hash    TEXT NOT NULL,
    response_status INTEGER NOT NULL,
    response_body   BYTEA,
    created_at      TIMESTAMPTZ NOT NULL,
    expires_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (agent_id, key)
);
CREATE INDEX idempotency_records_expiry_idx ON idempotency_records (expires_at);

-- +goose Down
DROP TABLE idempotency_records;
DROP TABLE audit_log;
DROP FUNCTION audit_log_append_only();
DROP TABLE heartbeats;
DROP TABLE strategy_executions;
DROP TABLE strategies;
DROP TABLE positions;
DROP TABLE fills;
DROP TABLE orders;
DROP TABLE device_links;
DROP TABLE api_keys;
DROP TABLE agents;
DROP TABLE wallets;
DROP TABLE user_credentials;
DROP TABLE users;
