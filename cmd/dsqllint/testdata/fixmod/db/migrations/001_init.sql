CREATE TABLE shards (
    shard_id bigint PRIMARY KEY,
    range_id bigint NOT NULL
);

CREATE TABLE jobs (
    id bigserial PRIMARY KEY,
    state text NOT NULL
);

CREATE INDEX jobs_state ON jobs (state);
