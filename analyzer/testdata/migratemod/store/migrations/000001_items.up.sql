CREATE TABLE items (id bigint PRIMARY KEY, name text);
CREATE INDEX ASYNC items_name ON items (name); -- want `DSQL104 ddl-transaction: CREATE INDEX runs in the same migration transaction \(golang-migrate, which the module requires, sends a file as one Exec: one implicit transaction\) as the CREATE TABLE on line 1`
