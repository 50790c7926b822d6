// Package exp is a stub of goqu's exp for tests.
package exp

type WaitOption int

const (
	Wait WaitOption = iota
	NoWait
	SkipLocked
)
