-- goose runs this section in a transaction where it also inserts the
-- version row: the one DDL statement fails beside it. The run that applies
-- statement by statement sees nothing wrong.
-- +goose Up
CREATE INDEX ASYNC accounts_created ON accounts (updated_at, id); -- want@file `DSQL104 ddl-transaction: CREATE INDEX runs in goose's migration transaction, where goose also records the migration's version \(INSERT INTO goose_db_version\).*-- \+goose NO TRANSACTION`

-- +goose Down
DROP INDEX accounts_created; -- want@file `DSQL104 ddl-transaction: DROP INDEX runs in goose's migration transaction, where goose also records the migration's version \(DELETE FROM goose_db_version\)`
