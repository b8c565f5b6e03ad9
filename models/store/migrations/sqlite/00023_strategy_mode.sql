-- +goose Up
-- A strategy carries its agent's mode (docs/paper-trading.md) as orders
-- do, so the dashboard and the Temporal Mode search attribute tell paper
-- from live without a join; an agent's mode never changes, so the copy
-- made at creation stays true.
ALTER TABLE strategies ADD COLUMN mode TEXT NOT NULL DEFAULT 'live';
UPDATE strategies SET mode = (SELECT agents.mode FROM agents WHERE agents.id = strategies.agent_id)
    WHERE EXISTS (SELECT 1 FROM agents WHERE agents.id = strategies.agent_id);

-- +goose Down
ALTER TABLE strategies DROP COLUMN mode;
