// Package writeskew removes group members: the last-admin check reads other
// rows of the table, which snapshot isolation lets two removals both pass.
package writeskew

import "database/sql"

func RemoveMember(db *sql.DB, group, user int64) error {
	_, err := db.Exec(`DELETE FROM members
WHERE group_id = $1 AND user_id = $2 AND NOT (role = 0 AND (SELECT COUNT(*) FROM members WHERE group_id = $1 AND user_id <> $2 AND role = 0) = 0)`, group, user) // want `DSQL003 unfenced-write: this DELETE is guarded by a subquery over the rows of members with the same group_id, and no UNIQUE constraint holds what it checks: under snapshot isolation two such writes both pass the guard`
	return err
}

// Negative twin: the guard reads another table (the group row, which the
// removal also writes in its transaction elsewhere).
func LeaveGroup(db *sql.DB, group, user int64) error {
	_, err := db.Exec(`DELETE FROM members WHERE group_id = $1 AND user_id = $2 AND EXISTS (SELECT 1 FROM groups WHERE id = $1 AND open)`, group, user)
	return err
}

// A window of rows to keep is no guard: two trims delete the same rows,
// and DSQL sees their conflict. A guard NOT IN over other rows still is.
func TrimHistory(db *sql.DB, group int64, keep int) error {
	_, err := db.Exec(`DELETE FROM members WHERE group_id = $1 AND user_id NOT IN (
		SELECT user_id FROM members WHERE group_id = $1 ORDER BY joined_at DESC LIMIT $2)`, group, keep)
	return err
}

func RemoveUnlessLastAdmin(db *sql.DB, group, user int64) error {
	_, err := db.Exec(`DELETE FROM members WHERE group_id = $1 AND user_id = $2 AND $2 NOT IN (SELECT user_id FROM members WHERE group_id = $1 AND role = 0 HAVING COUNT(*) = 1)`, group, user) // want `DSQL003 unfenced-write: this DELETE is guarded by a subquery over the rows of members`
	return err
}
