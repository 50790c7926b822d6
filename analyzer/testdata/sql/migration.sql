-- +goose Up
CREATE TABLE task_queues (
    range_hash    integer NOT NULL,
    task_queue_id bytea NOT NULL,
    range_id      bigint NOT NULL,
    data          bytea NOT NULL,
    PRIMARY KEY (range_hash, task_queue_id)
);

-- A backfill that rewrites every queue's data: task_queues has a range_id fence.
UPDATE task_queues SET data = '\x00'
WHERE range_hash = 0 AND task_queue_id = '\x01'; -- want `DSQL003 unfenced-write: UPDATE of task_queues has no compare-and-swap predicate`

-- +goose Down
DROP TABLE task_queues;
