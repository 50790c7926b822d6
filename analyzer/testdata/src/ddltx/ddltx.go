// Package ddltx runs DDL and DML on one transaction through separate
// calls: DSQL104 across Exec calls.
package ddltx

import (
	"context"
	"database/sql"
)

// A Go migration runner: each migration runs on the transaction the
// runner begins, which then records the version in it.
var migrations = []func(tx *sql.Tx) error{
	func(tx *sql.Tx) error {
		_, err := tx.Exec("CREATE TABLE accounts (id uuid PRIMARY KEY, name text)")
		return err
	},
	func(tx *sql.Tx) error {
		if _, err := tx.Exec("ALTER TABLE accounts ADD COLUMN email text"); err != nil {
			return err
		}
		_, err := tx.Exec("UPDATE accounts SET email = name WHERE email IS NULL") // want `DSQL104 ddl-transaction: this UPDATE runs on the transaction tx after the ALTER TABLE at ddltx.go:18: Aurora DSQL does not mix schema changes and data changes in one transaction \(0A000 ddl and dml are not supported in the same transaction\)`
		return err
	},
	func(tx *sql.Tx) error {
		stmt := `
			DROP INDEX accounts_name_idx;`
		if _, err := tx.Exec(stmt); err != nil {
			return err
		}
		_, err := tx.Exec("CREATE INDEX ASYNC accounts_email_idx ON accounts (email)") // want `DSQL104 ddl-transaction: this CREATE INDEX runs on the transaction tx after the DROP INDEX at ddltx.go:26: Aurora DSQL allows one DDL statement per transaction \(0A000 multiple ddl statements not supported in a transaction\)`
		return err
	},
}

func migrate(db *sql.DB, from int) error {
	for v := from; v < len(migrations); v++ {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		if err := migrations[v](tx); err != nil {
			tx.Rollback()
			return err
		}
		if _, err := tx.Exec("INSERT INTO schema_version (version) VALUES ($1)", v+1); err != nil { // want `DSQL104 ddl-transaction: this INSERT runs on the transaction tx after the CREATE TABLE that migrations\[v\] runs on it \(ddltx.go:14\)`
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// createIndex is handed its caller's transaction.
func createIndex(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "CREATE INDEX ASYNC accounts_name_idx ON accounts (name)")
	return err
}

func cleanThenIndex(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM accounts WHERE name = ''"); err != nil {
		return err
	}
	if err := createIndex(ctx, tx); err != nil { // want `DSQL104 ddl-transaction: the CREATE INDEX that createIndex runs on it \(ddltx.go:58\) runs on the transaction tx after the DELETE at ddltx.go:68`
		return err
	}
	return tx.Commit()
}

// Negatives.

// Autocommit: each statement is a transaction of its own.
func autocommit(ctx context.Context, db *sql.DB) {
	db.ExecContext(ctx, "CREATE TABLE audit (id uuid PRIMARY KEY, at timestamptz)")
	db.ExecContext(ctx, "INSERT INTO audit (id, at) VALUES ($1, now())")
}

// One statement per transaction, committed between.
func committedBetween(ctx context.Context, db *sql.DB) error {
	ddl, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	ddl.ExecContext(ctx, "CREATE TABLE audit (id uuid PRIMARY KEY)")
	if err := ddl.Commit(); err != nil {
		return err
	}
	dml, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	dml.ExecContext(ctx, "INSERT INTO audit (id) VALUES ($1)")
	return dml.Commit()
}

// Branches that no run takes both of.
func branches(ctx context.Context, tx *sql.Tx, postgres bool) {
	if postgres {
		tx.ExecContext(ctx, "CREATE INDEX ASYNC a_idx ON accounts (name)")
	} else {
		tx.ExecContext(ctx, "UPDATE accounts SET name = lower(name) WHERE id = $1")
	}
}

func cases(ctx context.Context, tx *sql.Tx, mode int) {
	switch mode {
	case 1:
		tx.ExecContext(ctx, "ALTER TABLE accounts ADD COLUMN note text")
	case 2:
		tx.ExecContext(ctx, "DELETE FROM accounts WHERE id = $1")
	}
}

func earlyReturn(ctx context.Context, tx *sql.Tx, fresh bool) error {
	if fresh {
		_, err := tx.ExecContext(ctx, "CREATE TABLE settings (k text PRIMARY KEY, v text)")
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE settings SET v = $1 WHERE k = $2")
	return err
}

// Reads beside DDL: DSQL refuses data changes only.
func readAfterDDL(ctx context.Context, tx *sql.Tx) {
	tx.ExecContext(ctx, "ALTER TABLE accounts ADD COLUMN flags text")
	tx.QueryRowContext(ctx, "SELECT count(*) FROM accounts")
}

// A transaction variable reused by a second Begin: two transactions.
func reused(ctx context.Context, db *sql.DB) {
	tx, _ := db.BeginTx(ctx, nil)
	tx.ExecContext(ctx, "CREATE TABLE jobs (id uuid PRIMARY KEY)")
	tx.Commit()
	tx, _ = db.BeginTx(ctx, nil)
	tx.ExecContext(ctx, "INSERT INTO jobs (id) VALUES ($1)")
	tx.Commit()
}

// A session type with Commit and Rollback that is not a transaction
// (an ORM handle): not followed.
type session struct{ db *sql.DB }

func (s *session) Exec(q string, args ...any) (sql.Result, error) { return s.db.Exec(q, args...) }
func (s *session) Commit() error                                  { return nil }
func (s *session) Rollback() error                                { return nil }

func viaSession(s *session) {
	s.Exec("CREATE TABLE t (id uuid PRIMARY KEY)")
	s.Exec("INSERT INTO t (id) VALUES ($1)")
}

// DDL run in a loop on one transaction: from its second run on, it is a
// second DDL statement in the transaction.
func indexes(ctx context.Context, db *sql.DB, tables []string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, q := range []string{
		"CREATE INDEX ASYNC records_type_idx ON records (type)",
		"CREATE INDEX ASYNC records_at_idx ON records (modified_at)",
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil { // want `DSQL104 ddl-transaction: this CREATE INDEX runs on the transaction tx in a loop: from its second run on, it follows a DDL statement on the same transaction: Aurora DSQL allows one DDL statement per transaction`
			return err
		}
	}
	return tx.Commit()
}

func dropAll(ctx context.Context, tx *sql.Tx, tables []string) {
	for _, t := range tables {
		tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+t) // want `DSQL104 ddl-transaction: this DROP TABLE runs on the transaction tx in a loop`
	}
}

// Negatives: a transaction begun in each round of the loop; a loop that
// runs once; a loop that writes rows.
func indexEach(ctx context.Context, db *sql.DB, tables []string) error {
	for _, t := range tables {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		tx.ExecContext(ctx, "CREATE INDEX ASYNC ON "+t+" (id)")
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

func indexOnce(ctx context.Context, tx *sql.Tx) {
	for _, q := range []string{"CREATE INDEX ASYNC records_kind_idx ON records (kind)"} {
		tx.ExecContext(ctx, q)
	}
}

func insertAll(ctx context.Context, tx *sql.Tx, rows []string) {
	for _, r := range rows {
		tx.ExecContext(ctx, "INSERT INTO records (id) VALUES ($1)", r)
	}
}

// The same lists named: a package's (SpiceDB's migrations), declared
// after the function, and a local one.
func namedIndexes(ctx context.Context, tx *sql.Tx) error {
	for _, q := range recordIndexes {
		if _, err := tx.ExecContext(ctx, q); err != nil { // want `DSQL104 ddl-transaction: this CREATE INDEX runs on the transaction tx in a loop`
			return err
		}
	}
	return nil
}

func localIndexes(ctx context.Context, tx *sql.Tx) error {
	local := []string{
		"CREATE TABLE audit (id int PRIMARY KEY)",
		"INSERT INTO audit (id) VALUES (1)",
	}
	for _, q := range local {
		tx.ExecContext(ctx, q) // want `DSQL104 ddl-transaction: this CREATE TABLE runs on the transaction tx in a loop`
	}
	return nil
}

var recordIndexes = []string{
	"CREATE INDEX ASYNC records_owner_idx ON records (owner)",
	"CREATE INDEX ASYNC records_state_idx ON records (state)",
}

// Negatives: a named list of one statement; a list the package changes,
// and an exported one, whose elements are not known.
func namedOnce(ctx context.Context, tx *sql.Tx) {
	for _, q := range onlyIndex {
		tx.ExecContext(ctx, q)
	}
	for _, q := range extraIndexes {
		tx.ExecContext(ctx, q)
	}
	for _, q := range ExportedIndexes {
		tx.ExecContext(ctx, q)
	}
}

var onlyIndex = []string{"CREATE INDEX ASYNC records_kind2_idx ON records (kind)"}

var extraIndexes = []string{
	"CREATE INDEX ASYNC records_a_idx ON records (a)",
	"CREATE INDEX ASYNC records_b_idx ON records (b)",
}

var ExportedIndexes = []string{
	"CREATE INDEX ASYNC records_c_idx ON records (c)",
	"CREATE INDEX ASYNC records_d_idx ON records (d)",
}

func init() { extraIndexes = extraIndexes[:1] }
