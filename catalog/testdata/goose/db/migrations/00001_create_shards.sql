-- +goose Up
CREATE TABLE shards (
    shard_id   INTEGER NOT NULL,
    range_id   BIGINT NOT NULL,
    data       BYTEA,
    PRIMARY KEY (shard_id)
);

-- +goose Down
DROP TABLE shards;
