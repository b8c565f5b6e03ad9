-- +goose Up
-- PostgreSQL's change notifications (models/readcache) have no SQLite
-- counterpart: one process owns an SQLite file, and it reads through. This
-- empty migration keeps both dialects at the same schema version.

-- +goose Down
