-- +goose Up
-- A redemption settles the positions of every agent of the user in the
-- markets it redeems (the agents share the wallet whose whole balance the
-- contracts burn), so it looks positions up by user.
CREATE INDEX positions_user_idx ON positions (user_id);

-- +goose Down
DROP INDEX positions_user_idx;
