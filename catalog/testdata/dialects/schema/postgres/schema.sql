CREATE TABLE shards (shard_id INTEGER NOT NULL, range_id BIGINT NOT NULL, data bytea, PRIMARY KEY (shard_id));
