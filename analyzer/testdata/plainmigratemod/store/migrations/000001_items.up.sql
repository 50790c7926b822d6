CREATE TABLE items (id bigint PRIMARY KEY, name text);
CREATE INDEX ASYNC items_name ON items (name);
