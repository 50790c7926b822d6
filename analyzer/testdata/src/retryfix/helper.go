package retryfix

import (
	"context"
	"database/sql"
	"fmt"
)

// The helper of a thousand sqlc projects: the statements are the
// callers', on a Queries made from the transaction; a failed Rollback's
// error, which the retry helper drops, went with the caller's.
type Queries struct{ db *sql.Tx }

func newQueries(tx *sql.Tx) *Queries { return &Queries{db: tx} }

func (q *Queries) lockShow(ctx context.Context, id int64) error {
	_, err := q.db.ExecContext(ctx, "SELECT 1 FROM shows WHERE id = $1 FOR UPDATE", id) // want `DSQL005 .* \(-fix runs the transaction of \(\*retryfix.Store\).execTx in the retry helper\)`
	return err
}

func (s *Store) execTx(ctx context.Context, fn func(*Queries) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	q := newQueries(tx)
	err = fn(q)
	if err != nil {
		if rbErr := tx.Rollback(); rbErr != nil {
			return fmt.Errorf("tx err: %v, rb err: %v", err, rbErr)
		}
		return err
	}
	return tx.Commit()
}

func (s *Store) Close(ctx context.Context, id int64) error {
	return s.execTx(ctx, func(q *Queries) error {
		return q.lockShow(ctx, id)
	})
}
