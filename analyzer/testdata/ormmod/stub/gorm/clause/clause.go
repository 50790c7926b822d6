// Package clause is a stub of gorm.io/gorm/clause for tests.
package clause

type Expression interface{}

type Table struct{ Name string }

type Locking struct {
	Strength string
	Table    Table
	Options  string
}
