-- +goose Up
-- The schema dsqllint learns: the tables' keys. Which fences shards and
-- leases have it learns from the statements that claim and compare-and-set
-- them.
CREATE TABLE shards (
    shard_id INTEGER PRIMARY KEY,
    range_id BIGINT NOT NULL,
    data     BYTEA
);

CREATE TABLE leases (
    resource_id  TEXT PRIMARY KEY,
    namespace    TEXT NOT NULL,
    worker_id    TEXT,
    heartbeat_at TIMESTAMPTZ,
    expires_at   TIMESTAMPTZ
);

-- +goose Down
DROP TABLE leases;
DROP TABLE shards;
