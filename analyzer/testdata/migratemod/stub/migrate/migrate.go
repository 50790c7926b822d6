// Package migrate stands in for golang-migrate.
package migrate

// Migrate applies migrations.
type Migrate struct{}

// New returns a migrator of the files at source for the database at url.
func New(source, url string) (*Migrate, error) { return &Migrate{}, nil }

// Up applies every migration not applied yet.
func (*Migrate) Up() error { return nil }
