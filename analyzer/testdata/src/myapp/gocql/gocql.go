// Package gocql is a project's own wrapper of the Cassandra driver, in a
// module whose path has no dot.
package gocql

type Session struct{}

type Query struct{}

func (s *Session) Query(stmt string, values ...interface{}) *Query { return &Query{} }

func (q *Query) Exec() error { return nil }
