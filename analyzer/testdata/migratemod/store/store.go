// Package store applies its embedded migrations with golang-migrate,
// which sends each file as one Exec: one implicit transaction.
package store

import (
	"embed"

	"github.com/golang-migrate/migrate/v4"
)

//go:embed migrations/*
var migrations embed.FS

// Migrate applies the migrations.
func Migrate(url string) error {
	m, err := migrate.New("iofs://migrations", url)
	if err != nil {
		return err
	}
	return m.Up()
}
