CREATE TABLE executions (
    shard_id     INTEGER NOT NULL,
    namespace_id BYTEA NOT NULL,
    workflow_id  VARCHAR(255) NOT NULL,
    run_id       BYTEA NOT NULL,
    next_event_id BIGINT NOT NULL,
    PRIMARY KEY (shard_id, namespace_id, workflow_id, run_id)
);
