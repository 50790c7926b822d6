CREATE TABLE items (id bigint PRIMARY KEY, name text);
CREATE INDEX items_name ON items (name); -- want `DSQL103 index-async`
