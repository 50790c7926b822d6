// Package migrations holds the app's Go migrations: it changes the schema,
// so every function of it runs once, at upgrade, and what it locks and
// writes shows no contention and races with nothing.
package migrations

import "database/sql"

func AddCaveatXID(tx *sql.Tx) error {
	_, err := tx.Exec("ALTER TABLE caveat ADD COLUMN created_xid bigint")
	return err
}

func LockCaveat(tx *sql.Tx, name string) error {
	_, err := tx.Exec("SELECT name FROM caveat WHERE name = $1 FOR UPDATE", name)
	return err
}

func MarkReady(db *sql.DB, name string) error {
	_, err := db.Exec("UPDATE caveat SET state = 'ready' WHERE name = $1", name)
	return err
}
