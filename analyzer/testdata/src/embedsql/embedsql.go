// Package embedsql embeds its queries from .sql files.
package embedsql

import "embed"

//go:embed queries/*.sql
var queries embed.FS

//go:embed "schema.sql"
var schema string
