-- +goose Up
-- A PENDING order can be cancelled while its placement is still retrying.
-- posting_until is the claim the placement step takes, in the same guarded
-- update that checks the order is still PENDING, just before it posts the
-- order to the venue: a cancel of a PENDING order only succeeds while no
-- claim is live, so a cancel and a post never race (store.ClaimOrderPost,
-- store.CancelPendingOrder). NULL when no post was ever attempted.
ALTER TABLE orders ADD COLUMN posting_until DATETIME;

-- +goose Down
ALTER TABLE orders DROP COLUMN posting_until;
