// Package schema holds the MySQL backend's schema. It imports no driver:
// its directory says whose it is.
package schema

var Statements = []string{
	"CREATE TABLE items (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT)",
	"CREATE INDEX items_v ON items (v)",
}
