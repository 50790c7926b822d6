// Package dialectbranch is a store that chooses between databases inside
// its functions, as Ory's persisters do: what a branch runs only against
// another database is not checked; the PostgreSQL branch and the code
// every database runs are.
package dialectbranch

import (
	"context"
	"database/sql"
	"fmt"
)

const (
	DriverCockroachDB = "cockroach"
	DriverMySQL       = "mysql"
	DriverPostgreSQL  = "postgres"
)

type Kind int

const (
	KindPostgres Kind = iota
	KindSQLite
)

type Dialect interface{ Name() string }

type Store struct {
	db      *sql.DB
	dialect Dialect
	kind    Kind
	isMySQL bool
}

// The lock clause only CockroachDB gets.
func (s *Store) Extend(ctx context.Context, id string) error {
	lock := ""
	if s.dialect.Name() == DriverCockroachDB {
		lock = "FOR UPDATE SKIP LOCKED"
	}
	_, err := s.db.ExecContext(ctx, fmt.Sprintf("UPDATE sessions SET expires_at = now() WHERE id = $1 %s", lock), id)
	return err
}

// The lock clause PostgreSQL gets: reported.
func (s *Store) ExtendPostgres(ctx context.Context, id string) error {
	lock := ""
	if s.dialect.Name() == DriverPostgreSQL {
		lock = "FOR UPDATE SKIP LOCKED" // want `DSQL006 lock-wait-policy`
	}
	_, err := s.db.ExecContext(ctx, fmt.Sprintf("SELECT id FROM sessions WHERE id = $1 %s", lock), id)
	return err
}

// Every database but CockroachDB returns first: the options are
// CockroachDB's.
func (s *Store) ReadCommittedOnCockroach(ctx context.Context) (*sql.Tx, error) {
	if s.dialect.Name() != DriverCockroachDB {
		return s.db.BeginTx(ctx, nil)
	}
	return s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
}

// The same options on every database: reported.
func (s *Store) ReadCommitted(ctx context.Context) (*sql.Tx, error) {
	if s.dialect.Name() == DriverCockroachDB {
		return s.db.BeginTx(ctx, nil)
	}
	return s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted}) // want `DSQL009 isolation-level`
}

// A switch on the engine, a test named for one, an enum, an else.
func (s *Store) Upsert(ctx context.Context, id string) error {
	var q string
	switch s.dialect.Name() {
	case DriverMySQL, "sqlite3":
		q = "INSERT INTO items (id) VALUES (?) ON DUPLICATE KEY UPDATE id = id FOR SHARE"
	case DriverPostgreSQL:
		q = "SELECT id FROM items WHERE id = $1 FOR SHARE" // want `DSQL001`
	default:
		q = "SELECT id FROM items WHERE id = $1 FOR SHARE" // want `DSQL001`
	}
	if s.isMySQL {
		q = "SELECT id FROM items WHERE id = ? LOCK IN SHARE MODE FOR SHARE"
	}
	if s.kind == KindSQLite {
		q = "SELECT id FROM items WHERE id = ? FOR SHARE"
	} else {
		q = "SELECT id FROM items WHERE id = $1 FOR SHARE" // want `DSQL001`
	}
	if isSQLite(s.dialect) && s.db != nil {
		q = "SELECT id FROM items WHERE id = ? FOR SHARE"
	}
	if s.dialect.Name() != "mysql" {
		q = "SELECT id FROM items WHERE id = $1 FOR SHARE" // want `DSQL001`
	} else {
		q = "SELECT id FROM items WHERE id = ? FOR SHARE"
	}
	_, err := s.db.ExecContext(ctx, q, id)
	return err
}

func isSQLite(d Dialect) bool { return d.Name() == "sqlite3" }

// Truncate empties a table the way each database can (Authelia's):
// SQLite's helper runs only from SQLite's case, and is left out with it.
func (s *Store) Truncate(ctx context.Context, table string) error {
	switch s.dialect.Name() {
	case "sqlite3":
		return s.truncateSQLite(ctx, table)
	default:
		_, err := s.db.ExecContext(ctx, "DELETE FROM "+table)
		return err
	}
}

func (s *Store) truncateSQLite(ctx context.Context, table string) error {
	_, err := s.db.ExecContext(ctx, "VACUUM")
	return err
}

// A helper the other branches call too, one handed on as a value, and an
// exported one: checked.
func (s *Store) Compact(ctx context.Context) error {
	if s.dialect.Name() == DriverMySQL {
		return s.vacuum(ctx)
	}
	_ = s.vacuumLater
	if s.dialect.Name() == DriverMySQL {
		s.vacuumLater(ctx)
		return s.VacuumAll(ctx)
	}
	return s.vacuum(ctx)
}

func (s *Store) vacuum(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, "VACUUM items") // want `DSQL105`
	return err
}

func (s *Store) vacuumLater(ctx context.Context) {
	s.db.ExecContext(ctx, "VACUUM jobs") // want `DSQL105`
}

func (s *Store) VacuumAll(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, "VACUUM") // want `DSQL105`
	return err
}
