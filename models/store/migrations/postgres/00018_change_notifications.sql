-- +goose Up
-- Every commit that changes what the API serves from memory (models/readcache:
-- keys and agents, budget reservations, positions, live-order and
-- strategy counts) notifies the channel ats_changes with "<kind>:<id>",
-- delivered to every listening process when (and only if) the transaction
-- commits. A trigger rather than application code, so every writer —
-- the dashboard, `ats admin`, another instance, a hand-written UPDATE —
-- invalidates the caches of every API instance.
-- +goose StatementBegin
CREATE FUNCTION ats_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r jsonb;
BEGIN
    IF TG_OP = 'DELETE' THEN
        r := to_jsonb(OLD);
    ELSE
        r := to_jsonb(NEW);
    END IF;
    PERFORM pg_notify('ats_changes', TG_ARGV[0] || ':' || (r ->> TG_ARGV[1]));
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER agents_notify AFTER UPDATE OR DELETE ON agents
    FOR EACH ROW EXECUTE FUNCTION ats_notify_change('agent', 'id');
-- A key's last use is bookkeeping; what decides a request is here.
CREATE TRIGGER api_keys_notify AFTER UPDATE OF revoked_at, hash, agent_id, user_id OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION ats_notify_change('agent', 'agent_id');
CREATE TRIGGER budget_reservations_notify AFTER INSERT OR UPDATE OR DELETE ON budget_reservations
    FOR EACH ROW EXECUTE FUNCTION ats_notify_change('budget', 'user_id');
CREATE TRIGGER positions_notify AFTER INSERT OR UPDATE OR DELETE ON positions
    FOR EACH ROW EXECUTE FUNCTION ats_notify_change('positions', 'agent_id');
CREATE TRIGGER orders_notify AFTER INSERT OR UPDATE OF status, agent_id OR DELETE ON orders
    FOR EACH ROW EXECUTE FUNCTION ats_notify_change('orders', 'agent_id');
CREATE TRIGGER strategies_notify AFTER INSERT OR UPDATE OF status, agent_id OR DELETE ON strategies
    FOR EACH ROW EXECUTE FUNCTION ats_notify_change('strategies', 'agent_id');

-- +goose Down
DROP TRIGGER strategies_notify ON strategies;
DROP TRIGGER orders_notify ON orders;
DROP TRIGGER positions_notify ON positions;
DROP TRIGGER budget_reservations_notify ON budget_reservations;
DROP TRIGGER api_keys_notify ON api_keys;
DROP TRIGGER agents_notify ON agents;
DROP FUNCTION ats_notify_change();
