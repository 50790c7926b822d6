-- migrate:up
CREATE UNIQUE INDEX ASYNC jobs_locked_by ON jobs (locked_by);

-- migrate:down
DROP INDEX jobs_locked_by;
