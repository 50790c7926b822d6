// Package cqlwrapped runs CQL through the project's wrapper of gocql.
package cqlwrapped

import "temporal.io/gocql"

const templateDeleteShard = `DELETE FROM shards WHERE shard_id = ?`

const templateUpdateShard = `UPDATE shards SET range_id = ? WHERE shard_id = ? IF range_id = ?`

func Delete(s gocql.Session) error {
	if err := s.Query(templateUpdateShard).Exec(); err != nil {
		return err
	}
	return s.Query(templateDeleteShard, 1).Exec()
}
