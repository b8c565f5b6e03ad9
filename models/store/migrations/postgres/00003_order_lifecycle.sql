-- +goose Up
-- The order lifecycle (#7): the signed order is stored before it is posted
-- so a retried placement reposts exactly the same order (same hash, which
-- the venue deduplicates) after reconciling by that hash; request_type is
-- the type the agent asked for (LIMIT, MARKET, FOK, FAK) next to the venue
-- order type in type.
ALTER TABLE orders ADD COLUMN signed_order TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN request_type TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN neg_risk BOOLEAN NOT NULL DEFAULT FALSE;
-- Redemptions: what was redeemed of a position and what it paid, so a
-- position recomputed from its fills still nets out redeemed shares.
ALTER TABLE positions ADD COLUMN redeemed_size_micro BIGINT NOT NULL DEFAULT 0;
ALTER TABLE positions ADD COLUMN payout_micro BIGINT NOT NULL DEFAULT 0;
ALTER TABLE positions ADD COLUMN redeem_tx TEXT NOT NULL DEFAULT '';
ALTER TABLE positions ADD COLUMN redeemed_at TIMESTAMPTZ;
CREATE INDEX orders_agent_token_idx ON orders (agent_id, token_id);

-- +goose Down
DROP INDEX orders_agent_token_idx;
ALTER TABLE positions DROP COLUMN redeemed_at;
ALTER TABLE positions DROP COLUMN redeem_tx;
ALTER TABLE positions DROP COLUMN payout_micro;
ALTER TABLE positions DROP COLUMN redeemed_size_micro;
ALTER TABLE orders DROP COLUMN neg_risk;
ALTER TABLE orders DROP COLUMN request_type;
ALTER TABLE orders DROP COLUMN signed_order;
