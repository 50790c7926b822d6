package savepoint

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func nested(ctx context.Context, pool *pgxpool.Pool) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	inner, err := tx.Begin(ctx) // want `DSQL010 savepoint: pgx Tx.Begin starts a nested transaction with SAVEPOINT`
	if err != nil {
		return err
	}
	return inner.Commit(ctx)
}

func helper(ctx context.Context, tx pgx.Tx) (pgx.Tx, error) {
	return tx.Begin(ctx) // want `DSQL010`
}

func statements(tx *sql.Tx) {
	tx.Exec("SAVEPOINT before_update")              // want `DSQL010 savepoint: SAVEPOINT is rejected by Aurora DSQL \(0A000 unsupported transaction statement: SAVEPOINT\)`
	tx.Exec("RELEASE SAVEPOINT before_update")      // want `DSQL010 savepoint: RELEASE is rejected`
	tx.Exec("ROLLBACK TO SAVEPOINT before_update")  // want `DSQL010 savepoint: ROLLBACK TO is rejected`
	tx.Exec("rollback to before_update")            // want `DSQL010`

	// Negatives: a top-level begin on a pool or connection, and plain ROLLBACK.
	tx.Exec("ROLLBACK")
	_ = "release the savepoint before commit" // prose
}

func topLevel(ctx context.Context, conn *pgx.Conn) {
	conn.Begin(ctx)
}

// A decorator of pgx.Tx forwards Begin; it nests nothing itself.
type tracedTx struct{ pgx.Tx }

func (t tracedTx) Begin(ctx context.Context) (pgx.Tx, error) { return t.Tx.Begin(ctx) }

// Its twin begins a savepoint in a method of another name.
func (t tracedTx) Nested(ctx context.Context) (pgx.Tx, error) { return t.Tx.Begin(ctx) } // want `DSQL010`
