// Package compatembed embeds its migrations, as services that run them
// with golang-migrate's iofs source or goose's embed support do.
package compatembed

import "embed"

//go:embed migrations/*.sql
var migrations embed.FS
