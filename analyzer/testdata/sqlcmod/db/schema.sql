CREATE TABLE shards (
    shard_id INTEGER PRIMARY KEY,
    range_id BIGINT NOT NULL,
    data     BYTEA
);
