CREATE TABLE leaders (name text PRIMARY KEY, leader_id text, expires_at timestamptz);
CREATE TABLE shards (shard_id integer PRIMARY KEY, range_id bigint NOT NULL);
CREATE TABLE executions (shard_id integer, run_id text, next_event_id bigint, PRIMARY KEY (shard_id, run_id));
CREATE TABLE current_executions (shard_id integer, workflow_id text, run_id text, PRIMARY KEY (shard_id, workflow_id));
