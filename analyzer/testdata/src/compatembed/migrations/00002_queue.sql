-- +goose Up
-- +goose StatementBegin
CREATE UNIQUE INDEX ASYNC jobs_queue_state ON jobs (queue, state, run_at); -- want `DSQL104 ddl-transaction: CREATE INDEX runs in goose's migration transaction, where goose also records the migration's version \(INSERT INTO goose_db_version\)`
-- +goose StatementEnd
SELECT pg_advisory_lock(4242); -- want `DSQL007 explicit-lock: pg_advisory_lock`
LOCK TABLE jobs IN EXCLUSIVE MODE; -- want `DSQL007 explicit-lock: LOCK TABLE`

-- +goose Down
DROP INDEX jobs_queue_state; -- want `DSQL104 ddl-transaction: DROP INDEX runs in goose's migration transaction`
