// Package cqlstore runs Cassandra CQL through gocql and nothing else: its
// strings are not SQL, however much they read like it.
package cqlstore

import (
	"fmt"

	"github.com/gocql/gocql"
)

const templateUpdateNamespace = `UPDATE namespaces SET detail = ?, notification_version = ? WHERE namespaces_partition = ? and name = ?`

const templateTruncate = `TRUNCATE namespaces`

func Update(s *gocql.Session, v int64) error {
	if err := s.Query(templateUpdateNamespace, v).Exec(); err != nil {
		return err
	}
	q := fmt.Sprintf("SELECT * FROM %s WHERE id = ? FOR SHARE", "t")
	_ = q
	return s.Query(templateTruncate).Exec()
}
