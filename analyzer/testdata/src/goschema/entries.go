// Package goschema creates its tables from a Go constant, which names
// their keys: a transition of every entry of a user is no compare-and-swap
// of a row.
package goschema

import "database/sql"

const schema = `CREATE TABLE IF NOT EXISTS entries (
	id bigint PRIMARY KEY,
	user_id bigint NOT NULL,
	status text NOT NULL
)`

func Create(db *sql.DB) error {
	_, err := db.Exec(schema)
	return err
}

// MarkAllAsRead moves every unread entry of a user, and says how many.
func MarkAllAsRead(db *sql.DB, user int64) (int64, error) {
	res, err := db.Exec("UPDATE entries SET status = $1 WHERE user_id = $2 AND status = $3", "read", user, "unread")
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// SetStatus sets the status of some entries of a user: nothing races for
// them but the user.
func SetStatus(db *sql.DB, user int64, ids []int64, status string) error {
	_, err := db.Exec("UPDATE entries SET status = $1 WHERE user_id = $2 AND id = ANY($3)", status, user, ids)
	return err
}
