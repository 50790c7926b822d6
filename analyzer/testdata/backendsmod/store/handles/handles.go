// Package handles opens SQLite or PostgreSQL by which configuration is
// set, as Flyte's datacatalog does: it imports SQLite's driver only, and
// opens PostgreSQL through another package, but its switch names
// PostgreSQL's configuration. It is checked.
package handles

import (
	"context"
	"database/sql"

	_ "modernc.org/sqlite"
)

type DBConfig struct {
	SQLite   struct{ File string }
	Postgres struct{ DSN string }
}

func Open(cfg DBConfig) (*sql.DB, error) {
	switch {
	case cfg.SQLite.File != "":
		return sql.Open("sqlite", cfg.SQLite.File)
	case cfg.Postgres.DSN != "":
		return sql.Open("pgx", cfg.Postgres.DSN)
	}
	return nil, nil
}

func Reserve(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, "SELECT id FROM reservations WHERE id = $1 FOR SHARE", 1) // want `DSQL001` `DSQL005`
	return err
}
