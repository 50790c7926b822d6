// Package versionmigrations upgrades the schema, one function per version:
// most of its functions change the schema, so every one runs once, at
// upgrade, and its writes race with nothing.
package versionmigrations

import "database/sql"

func V1(db *sql.DB) error {
	_, err := db.Exec("CREATE TABLE settings (key text PRIMARY KEY, value jsonb)")
	return err
}

func V2(db *sql.DB) error {
	_, err := db.Exec("ALTER TABLE settings ADD COLUMN note text")
	return err
}

// V3 renames a setting unless the new name exists: a guard over other rows,
// harmless once.
func V3(db *sql.DB) error {
	_, err := db.Exec(`UPDATE settings SET key = 'b' WHERE key = 'a' AND NOT EXISTS (SELECT 1 FROM settings WHERE key = 'b')`)
	return err
}
