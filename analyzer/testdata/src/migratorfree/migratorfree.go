// Package migratorfree uses golang-migrate's file source only: the
// database driver is chosen elsewhere.
package migratorfree

import (
	_ "github.com/golang-migrate/migrate/v4/source/file"
)
