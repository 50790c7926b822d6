// Package migrate is a stub of tern's migrator.
package migrate

import "context"

type Migrator struct{}

func NewMigrator(ctx context.Context, conn any, versionTable string) (*Migrator, error) {
	return &Migrator{}, nil
}

func (m *Migrator) Migrate(ctx context.Context) error { return nil }
