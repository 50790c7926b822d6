-- The schema: shards carry a range_id fence.
CREATE TABLE shards (
    shard_id   integer PRIMARY KEY,
    range_id   bigint NOT NULL,
    data       bytea
);
