// Package catalog is the schema of a project's database as its DDL leaves
// it: tables (schema-qualified), their columns with types, primary keys,
// unique constraints and unique indexes, each with the file and line that
// declared it.
//
// A catalog is built by replaying DDL in order (Load): CREATE TABLE, ALTER
// TABLE ADD/DROP/RENAME COLUMN, ALTER COLUMN TYPE, ADD/DROP CONSTRAINT,
// CREATE [UNIQUE] INDEX [ASYNC], DROP TABLE/INDEX and renames. Migration
// files are put in the order their tool applies them (Order) and only their
// "up" part is read; DDL the model does not understand is skipped, never
// fatal. Discover finds the schema of a module: the schema setting, the
// schema paths of sqlc configuration, or the directories of .sql files
// that create tables.
//
// Like sqlparse, this package knows SQL only: it reads statements through
// sqlparse and never go/ast.
package catalog
