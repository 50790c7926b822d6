// Package postgres stands in for golang-migrate's PostgreSQL driver, which
// registers itself when imported.
package postgres
