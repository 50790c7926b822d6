// Package selfguard moves a queued message to the head of its queue only
// when it is not there already. The guard on the column it moves compares
// it with an expression (the queue's least position), not with a value the
// caller read: it is no compare-and-swap to learn a fence from, nor one the
// statement itself bypasses. A blind write of the column, with no fence of
// position anywhere, stays quiet too.
package selfguard

import (
	"context"
	"database/sql"
)

const moveToHead = `UPDATE queue AS target
SET position = COALESCE((SELECT MIN(position) FROM queue WHERE chat_id = $1), 0) - 1
WHERE target.id = $2 AND target.chat_id = $1
  AND target.position > COALESCE((SELECT MIN(position) FROM queue WHERE chat_id = $1), target.position)`

func move(ctx context.Context, db *sql.DB, chat, id int64) (int64, error) {
	res, err := db.ExecContext(ctx, moveToHead, chat, id)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func place(ctx context.Context, db *sql.DB, id, position int64) error {
	_, err := db.ExecContext(ctx, "UPDATE queue SET position = $1 WHERE id = $2", position, id)
	return err
}
