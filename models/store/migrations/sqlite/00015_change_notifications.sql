-- +goose Up
-- PostgreSQL's change notifications (models/readcache) have no SQLite
-- counterpart: one process owns an SQLite file, and it reads through. This
-- keeps both dialects at the same schema version.
SELECT 1;

-- +goose Down
SELECT 1;
