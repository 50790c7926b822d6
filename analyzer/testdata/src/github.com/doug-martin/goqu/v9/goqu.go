// Package goqu is a stub of github.com/doug-martin/goqu/v9 for tests.
package goqu

import "github.com/doug-martin/goqu/v9/exp"

const (
	Wait       = exp.Wait
	NoWait     = exp.NoWait
	SkipLocked = exp.SkipLocked
)

type SelectDataset struct{}

func From(table ...interface{}) *SelectDataset { return &SelectDataset{} }
func (sd *SelectDataset) ForUpdate(waitOption exp.WaitOption, of ...interface{}) *SelectDataset {
	return sd
}
func (sd *SelectDataset) ForShare(waitOption exp.WaitOption, of ...interface{}) *SelectDataset {
	return sd
}
func (sd *SelectDataset) ForNoKeyUpdate(waitOption exp.WaitOption, of ...interface{}) *SelectDataset {
	return sd
}
func (sd *SelectDataset) ForKeyShare(waitOption exp.WaitOption, of ...interface{}) *SelectDataset {
	return sd
}
