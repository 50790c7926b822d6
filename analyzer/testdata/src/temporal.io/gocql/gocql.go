// Package gocql is a project's own wrapper of the Cassandra driver.
package gocql

import "github.com/gocql/gocql"

type Session interface {
	Query(stmt string, values ...interface{}) Query
}

type Query interface{ Exec() error }

var _ = gocql.Session{}
