-- +goose Up
CREATE TABLE jobs (
    id bigserial PRIMARY KEY, -- want `DSQL101 serial: BIGSERIAL column id`
    queue text NOT NULL,
    state text NOT NULL,
    run_at timestamptz NOT NULL
);
CREATE INDEX jobs_run_at ON jobs (queue, run_at); -- want `DSQL103 index-async: CREATE INDEX without ASYNC`

-- +goose Down
DROP TABLE jobs;
