// Package engines opens whichever database the configuration names, as
// Gogs' database package does: it registers SQLite's driver only, and
// reaches PostgreSQL's through another package, but chooses PostgreSQL
// too. It is checked; its SQLite and MySQL branches are not.
package engines

import (
	"context"
	"database/sql"

	_ "modernc.org/sqlite"
)

var UsePostgreSQL, UseMySQL bool

func Open(ctx context.Context, typ string) (*sql.DB, error) {
	switch typ {
	case "postgres":
		UsePostgreSQL = true
		return sql.Open("pgx", "postgres://")
	case "mysql":
		UseMySQL = true
		return sql.Open("mysql", "root@/app")
	}
	return sql.Open("sqlite", "app.db")
}

func Count(ctx context.Context, db *sql.DB) error {
	if UseMySQL {
		_, err := db.ExecContext(ctx, "SELECT id FROM repos LOCK IN SHARE MODE")
		return err
	}
	_, err := db.ExecContext(ctx, "SELECT id FROM repos WHERE id = $1 FOR SHARE", 1) // want `DSQL001` `DSQL005`
	return err
}
