// Package gorm is a stub of gorm.io/gorm for tests.
package gorm

import "gorm.io/gorm/clause"

type DB struct{}

func (db *DB) Clauses(conds ...clause.Expression) *DB { return db }
func (db *DB) Set(key string, value interface{}) *DB  { return db }
func (db *DB) First(dest interface{}, conds ...interface{}) *DB {
	return db
}

// Model is gorm's base model: its ID is the primary key.
type Model struct {
	ID        uint `gorm:"primarykey"`
	CreatedAt int64
}

func (db *DB) AutoMigrate(dst ...interface{}) error { return nil }

func (db *DB) Migrator() Migrator { return nil }

type Migrator interface {
	AutoMigrate(dst ...interface{}) error
	CreateTable(dst ...interface{}) error
}
