package occ

import (
	"context"
	"database/sql"

	"github.com/dsqllint/dsqllint/runtime/internal/retry"
)

// ExecCAS runs a conditional write, typically
//
//	UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3
//
// and requires it to affect exactly one row. Any other count returns a
// *ConditionFailedError naming the query, which RunTxWithRetry never retries
// and rolls back: zero rows means another writer changed the fence first,
// more than one means the WHERE clause does not pin a single row.
func ExecCAS(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return &ConditionFailedError{Msg: retry.CASMessage(n, query)}
	}
	return nil
}
