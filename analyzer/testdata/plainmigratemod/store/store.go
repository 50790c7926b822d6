// Package store keeps migrations named as golang-migrate names them, but
// its module does not require golang-migrate: how they run is not known,
// so each statement is judged on its own.
package store

import "embed"

//go:embed migrations/*
var migrations embed.FS

// Migrations are the schema's migrations.
func Migrations() embed.FS { return migrations }
