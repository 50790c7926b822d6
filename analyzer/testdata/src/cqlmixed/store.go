// Package cqlmixed runs both SQL and CQL: what goes to gocql is CQL.
package cqlmixed

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/gocql/gocql"
)

const cqlUpdate = `UPDATE shards SET range_id = ? WHERE shard_id = ?`

const sqlUpdate = `UPDATE shards SET range_id = $1 WHERE shard_id = $2` // want `DSQL003 unfenced-write: range_id is compare-and-set: store.go:18 compare-and-sets range_id`

// The SQL store's fence on shards; the CQL write above is not SQL, and
// stays quiet.
const sqlFence = `UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3`

func Run(ctx context.Context, s *gocql.Session, db *sql.DB) error {
	if err := s.Query(cqlUpdate, 1, 2).Exec(); err != nil {
		return err
	}
	if err := s.Query("TRUNCATE shards").Exec(); err != nil {
		return err
	}
	if err := s.Query(fmt.Sprintf("SELECT * FROM %s WHERE id = ? FOR SHARE", "t")).Exec(); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, sqlUpdate, 1, 2)
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, "TRUNCATE shards") // want `DSQL105 unsupported-statement`
	return err
}

// A field of the client's request is CQL too; the same text in a struct of
// the package's own is judged.
type job struct{ Statement string }

var (
	cqlBatch = gocql.Batch{Statement: "TRUNCATE shards"}
	sqlJob   = job{Statement: "TRUNCATE shards"} // want `DSQL105 unsupported-statement: TRUNCATE`
)
