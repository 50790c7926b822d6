// Command migrate chooses the engine: it speaks to several databases, so
// its own SQL is checked.
package main

import (
	"context"
	"database/sql"
	"os"

	"github.com/go-sql-driver/mysql"

	"example.com/backendsmod/store/sqlite"
)

func main() {
	ctx := context.Background()
	db, _ := sql.Open(os.Args[1], os.Args[2])
	if os.Args[1] == "sqlite" {
		_ = sqlite.Compact(ctx, db)
		return
	}
	_, _ = mysql.ParseDSN(os.Args[2])
	_, _ = db.ExecContext(ctx, "CREATE INDEX items_v ON items (v)") // want `DSQL103`
}
