-- +goose Up
CREATE TABLE task_queues (
    range_hash    integer NOT NULL,
    task_queue_id bytea NOT NULL,
    range_id      bigint NOT NULL,
    data          bytea NOT NULL,
    PRIMARY KEY (range_hash, task_queue_id)
);

-- A backfill that rewrites a queue's data: payload, and nothing here
-- shows task_queues contended.
UPDATE task_queues SET data = '\x00' -- want `DSQL104 ddl-transaction: UPDATE runs in the same migration transaction \(goose .*\) as the CREATE TABLE on line 2`
WHERE range_hash = 0 AND task_queue_id = '\x01';

-- +goose Down
DROP TABLE task_queues; -- want `DSQL104 ddl-transaction: DROP TABLE runs in goose's migration transaction`
