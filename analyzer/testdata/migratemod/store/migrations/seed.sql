-- A file not named as golang-migrate names its migrations: statement by
-- statement.
CREATE TABLE tags (id bigint PRIMARY KEY);
CREATE INDEX ASYNC tags_id ON tags (id);
