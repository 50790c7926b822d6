// Package embedexec runs embedded .sql files: one whole, as one string in
// one Exec call (DSQL104 judges it as one implicit transaction), and one
// statement by statement.
package embedexec

import (
	"context"
	"database/sql"
	_ "embed"
	"strings"
)

var (
	//go:embed setup.sql
	setupSQL string
)

//go:embed steps.sql
var stepsSQL string

func setup(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, setupSQL)
	return err
}

func steps(ctx context.Context, db *sql.DB) error {
	for _, s := range strings.Split(stepsSQL, ";") {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}
