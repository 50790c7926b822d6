// Package gorm is a stub of gorm.io/gorm for tests.
package gorm

import "gorm.io/gorm/clause"

type DB struct{ Error error }

func (db *DB) Clauses(conds ...clause.Expression) *DB            { return db }
func (db *DB) First(dest any, conds ...any) *DB                   { return db }
func (db *DB) Raw(sql string, values ...any) *DB                  { return db }
func (db *DB) Scan(dest any) *DB                                  { return db }
func (db *DB) Transaction(fc func(tx *DB) error, opts ...any) error { return fc(db) }
