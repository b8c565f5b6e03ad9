-- +goose Up
-- The catalogue code of a FAILED order's refusal (models/errs), beside its
-- client-safe text: a strategy tells a copy the market moved away from
-- (fak_no_match) from one the venue refused for the account's sake.
ALTER TABLE orders ADD COLUMN failure_code TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE orders DROP COLUMN failure_code;
