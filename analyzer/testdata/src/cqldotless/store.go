// Package cqldotless runs CQL through the project's wrapper of gocql in a
// module whose path has no dot (myapp/gocql): CQL, not SQL, so quiet,
// though TRUNCATE would be reported as SQL.
package cqldotless

import (
	"database/sql"

	"myapp/gocql"
)

// The package also holds a SQL store, so it is not skipped as having no
// database client.
var _ = sql.ErrNoRows

const templateUpdateShard = `UPDATE shards SET range_id = ? WHERE shard_id = ? IF range_id = ?`

func Reset(s *gocql.Session) error {
	if err := s.Query(templateUpdateShard, 2, 1, 1).Exec(); err != nil {
		return err
	}
	return s.Query("TRUNCATE shards").Exec()
}
