-- +goose Up
-- Every worker holds the price conditions of every ACTIVE strategy
-- (models/strategies.Triggers), so a strategy survives the worker that
-- armed it. Instead of each worker re-reading all of them periodically, the
-- database announces on ats_changes, as "strategy:<id>", each commit that
-- changes what a worker arms: a strategy created or deleted, its status, its
-- stored conditions, or — while it has conditions — its last evaluation (an
-- execution that left its conditions as they were: the worker whose
-- condition fired, and so disarmed it, arms it again). Copies and recurring
-- buys (no conditions) announce only their status changes.
-- +goose StatementBegin
CREATE FUNCTION ats_notify_strategy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('ats_changes', 'strategy:' || OLD.id);
    ELSE
        PERFORM pg_notify('ats_changes', 'strategy:' || NEW.id);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER strategies_arm_notify_insert_delete AFTER INSERT OR DELETE ON strategies
    FOR EACH ROW EXECUTE FUNCTION ats_notify_strategy();
CREATE TRIGGER strategies_arm_notify_update AFTER UPDATE OF status, triggers, last_evaluated_at ON strategies
    FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.triggers IS DISTINCT FROM NEW.triggers
          OR (NEW.triggers <> '' AND OLD.last_evaluated_at IS DISTINCT FROM NEW.last_evaluated_at))
    EXECUTE FUNCTION ats_notify_strategy();

-- +goose Down
DROP TRIGGER strategies_arm_notify_update ON strategies;
DROP TRIGGER strategies_arm_notify_insert_delete ON strategies;
DROP FUNCTION ats_notify_strategy();
