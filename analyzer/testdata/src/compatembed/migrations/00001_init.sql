-- +goose Up
CREATE TABLE jobs (
    id bigserial PRIMARY KEY, -- want `DSQL101 serial: BIGSERIAL column id`
    queue text NOT NULL,
    state text NOT NULL,
    run_at timestamptz NOT NULL
);
CREATE INDEX jobs_run_at ON jobs (queue, run_at); -- want `DSQL103 index-async: CREATE INDEX without ASYNC` `DSQL104 ddl-transaction: CREATE INDEX runs in the same migration transaction \(goose runs a section in one transaction .*\) as the CREATE TABLE on line 2.*goose also records the migration's version`

-- +goose Down
DROP TABLE jobs; -- want `DSQL104 ddl-transaction: DROP TABLE runs in goose's migration transaction, where goose also records the migration's version \(DELETE FROM goose_db_version\)`
