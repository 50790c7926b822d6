package isolation

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func options(ctx context.Context, db *sql.DB, pool *pgxpool.Pool, level sql.IsolationLevel) {
	db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})                  // want `DSQL009 isolation-level: Isolation: sql.LevelSerializable makes the driver send BEGIN ISOLATION LEVEL`
	db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelReadCommitted}) // want `DSQL009`
	db.BeginTx(ctx, &sql.TxOptions{
		Isolation: sql.LevelSerializable, // want `DSQL009`
	})
	pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable, AccessMode: "read write"}) // want `DSQL009 isolation-level: IsoLevel: pgx.Serializable`

	// Negatives: the levels DSQL runs, the default, and values we cannot know.
	db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSnapshot})
	db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelDefault, ReadOnly: true})
	db.BeginTx(ctx, &sql.TxOptions{Isolation: level})
	pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	pool.BeginTx(ctx, pgx.TxOptions{})
}

func statements(db *sql.DB) {
	db.Exec("BEGIN ISOLATION LEVEL SERIALIZABLE")                                      // want `DSQL009 isolation-level: ISOLATION LEVEL SERIALIZABLE is rejected by Aurora DSQL \(0A000 Unsupported isolation level: SERIALIZABLE\)`
	db.Exec("START TRANSACTION ISOLATION LEVEL READ COMMITTED, READ WRITE")            // want `DSQL009`
	db.Exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")                         // want `DSQL009 isolation-level: SET TRANSACTION is rejected by Aurora DSQL \(0A000 setting configuration parameter "TRANSACTION" not supported\)`
	db.Exec("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")                            // want `DSQL009 isolation-level: SET TRANSACTION ISOLATION LEVEL SERIALIZABLE is rejected by Aurora DSQL \(0A000 Unsupported isolation level: SERIALIZABLE\)`
	db.Exec("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE") // want `DSQL009`
	db.Exec("SET default_transaction_isolation = 'serializable'")                      // want `DSQL009`

	// Negatives.
	db.Exec("BEGIN ISOLATION LEVEL REPEATABLE READ")
	db.Exec("BEGIN READ ONLY")
	db.Exec("SET search_path = app")
	db.Exec("COMMIT")
}

// TxOptions are a project's own options, which its transaction helper
// hands to BeginTx.
type TxOptions struct {
	Isolation sql.IsolationLevel
	ReadOnly  bool
	TxName    string
}

// poolOptions are pgx's, kept by a project's pool wrapper.
type poolOptions struct{ Level pgx.TxIsoLevel }

func wrapped(levels map[string]sql.IsolationLevel) []TxOptions {
	return []TxOptions{
		{Isolation: sql.LevelSerializable, TxName: "quota"}, // want `DSQL009 isolation-level: Isolation: sql.LevelSerializable`
		{ReadOnly: true, Isolation: sql.LevelReadCommitted}, // want `DSQL009`
		// Negatives: the levels DSQL runs; a table of names, not options.
		{Isolation: sql.LevelRepeatableRead},
		{Isolation: levels["serializable"]},
		{sql.LevelDefault, true, "positional"},
	}
}

func wrappedPgx() poolOptions { return poolOptions{Level: pgx.Serializable} } // want `DSQL009 isolation-level: Level: pgx.Serializable`

var names = map[string]sql.IsolationLevel{"serializable": sql.LevelSerializable}

// A level kept in a variable, then in a field the options read: the
// constant is reported where it is set.
type store struct {
	pool *pgxpool.Pool
	iso  pgx.TxIsoLevel
	opts sql.IsolationLevel
}

func newStore(pool *pgxpool.Pool, relaxed bool) *store {
	iso := pgx.Serializable // want `DSQL009 isolation-level: iso := pgx.Serializable, the level its transactions begin with, makes the driver send BEGIN ISOLATION LEVEL`
	if relaxed {
		iso = pgx.RepeatableRead
	}
	s := &store{pool: pool, iso: iso}
	s.opts = sql.LevelSerializable // want `DSQL009 isolation-level: s.opts = sql.LevelSerializable`
	return s
}

func (s *store) begin(ctx context.Context) (pgx.Tx, error) {
	return s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: s.iso})
}

// Negatives: a level compared or relaxed, not set to one DSQL refuses,
// and a translation of the project's own levels, whose callers choose.
func strict(o pgx.TxOptions) bool { return o.IsoLevel == pgx.Serializable }

func driverLevel(strict bool) pgx.TxIsoLevel {
	var iso pgx.TxIsoLevel
	switch strict {
	case true:
		iso = pgx.Serializable
	default:
		iso = pgx.RepeatableRead
	}
	return iso
}

func relax(s *store) {
	s.iso = pgx.RepeatableRead
	s.opts = sql.LevelDefault
}

// The project's own levels, translated into the driver's by a switch:
// a constant argument selects what the call returns.
type level int

const (
	readCommitted level = iota
	repeatableRead
)

func isolationToSQL(l level) sql.IsolationLevel {
	switch l {
	case readCommitted:
		return sql.LevelReadCommitted
	case repeatableRead:
		return sql.LevelRepeatableRead
	}
	return sql.LevelSerializable
}

func push(ctx context.Context, db *sql.DB, l level) {
	db.BeginTx(ctx, &sql.TxOptions{Isolation: isolationToSQL(readCommitted)}) // want `DSQL009 isolation-level: Isolation: isolationToSQL\(readCommitted\)`
	db.BeginTx(ctx, &sql.TxOptions{Isolation: isolationToSQL(repeatableRead)})
	db.BeginTx(ctx, &sql.TxOptions{Isolation: isolationToSQL(l)}) // the caller chooses
}
