-- +goose Up
-- Failed second factors (TOTP and backup codes, passkeys at the second step
-- or a step-up) per account, counted apart from the password step's
-- failures so that a right password never clears them. A row is locked and
-- counted before a code is checked (store.TakeSecondFactorTurn), so
-- concurrent guesses cannot together exceed the limit.
CREATE TABLE second_factor_failures (
    user_id      TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    failures     BIGINT NOT NULL DEFAULT 0,
    window_ends  TIMESTAMPTZ NOT NULL,
    locked_until TIMESTAMPTZ
);

-- +goose Down
DROP TABLE second_factor_failures;
