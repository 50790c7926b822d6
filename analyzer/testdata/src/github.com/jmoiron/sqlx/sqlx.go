// Package sqlx is a stub of github.com/jmoiron/sqlx for tests.
package sqlx

import (
	"context"
	"database/sql"
)

type DB struct{ *sql.DB }
type Tx struct{ *sql.Tx }

func (db *DB) NamedExec(query string, arg interface{}) (sql.Result, error)   { return nil, nil }
func (db *DB) Get(dest interface{}, query string, args ...interface{}) error { return nil }
func (db *DB) Select(dest interface{}, query string, args ...interface{}) error {
	return nil
}
func (db *DB) Rebind(query string) string                                     { return query }
func (db *DB) Beginx() (*Tx, error)                                           { return nil, nil }
func (db *DB) BeginTxx(ctx context.Context, opts *sql.TxOptions) (*Tx, error) { return nil, nil }
func (tx *Tx) NamedExec(query string, arg interface{}) (sql.Result, error)    { return nil, nil }
func (tx *Tx) GetContext(ctx context.Context, dest interface{}, query string, args ...interface{}) error {
	return nil
}
func In(query string, args ...interface{}) (string, []interface{}, error) { return query, args, nil }
