// Package clause is a stub of gorm.io/gorm/clause for tests.
package clause

const (
	LockingStrengthUpdate    = "UPDATE"
	LockingStrengthShare     = "SHARE"
	LockingOptionsSkipLocked = "SKIP LOCKED"
	LockingOptionsNoWait     = "NOWAIT"
)

type Table struct{ Name string }

type Locking struct {
	Strength string
	Table    Table
	Options  string
}

type Expression interface{}
