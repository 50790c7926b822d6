CREATE TABLE executions (
    shard_id     INTEGER NOT NULL,
    namespace_id BYTEA NOT NULL,
    workflow_id  VARCHAR(255) NOT NULL,
    run_id       BYTEA NOT NULL,
    data         BYTEA,
    PRIMARY KEY (shard_id, namespace_id, workflow_id, run_id)
);
CREATE TABLE records (id uuid PRIMARY KEY, dns_name text NOT NULL, owner_id text, etag uuid);
CREATE TABLE jobs (id bigint PRIMARY KEY, queue text NOT NULL, status text NOT NULL, result text);
CREATE TABLE packages (name text PRIMARY KEY, version text, readme text);
