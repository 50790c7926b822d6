-- +goose Up
ALTER TABLE leases RENAME COLUMN worker TO worker_id;
ALTER TABLE shards DROP COLUMN data;

-- +goose Down
ALTER TABLE leases RENAME COLUMN worker_id TO worker;
ALTER TABLE shards ADD COLUMN data BYTEA;
