// Package store applies its embedded migrations.
package store

import "embed"

//go:embed migrations/*
var migrations embed.FS

// Migrations are the schema's migrations.
func Migrations() embed.FS { return migrations }
