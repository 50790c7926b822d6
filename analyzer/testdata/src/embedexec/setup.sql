CREATE TABLE accounts (id uuid PRIMARY KEY, name text);
CREATE INDEX ASYNC accounts_name_idx ON accounts (name); -- want `DSQL104 ddl-transaction: CREATE INDEX runs in the same Exec call \(the package's Go code runs this embedded file as one string: one implicit transaction\) as the CREATE TABLE`
