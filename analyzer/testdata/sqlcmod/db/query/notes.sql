-- A schema file beside the queries: the directory still holds queries,
-- whose writes are judged (not a migration's, which run once).
CREATE TABLE shard_notes (shard_id int PRIMARY KEY, note text NOT NULL);
