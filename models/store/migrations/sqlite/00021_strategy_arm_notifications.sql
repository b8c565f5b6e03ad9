-- +goose Up
-- PostgreSQL announces the strategy changes the workers' triggers follow
-- (ats_changes "strategy:<id>"); with SQLite one process owns the file and
-- its triggers hear the store's own after-commit changes (store.OnChange).
-- This empty migration keeps both dialects at the same schema version.

-- +goose Down
