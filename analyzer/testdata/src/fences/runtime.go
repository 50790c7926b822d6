package fences

import (
	"context"
	"database/sql"
	"fmt"
)

// A key-value store whose table is configured: the statements that name
// it through the same field share its fences.
type KV struct {
	db    *sql.DB
	table string
}

func (s *KV) SetIf(ctx context.Context, key, value, old string) (sql.Result, error) {
	return s.db.ExecContext(ctx, "UPDATE "+s.table+" SET value = $1 WHERE key = $2 AND value = $3", value, key, old)
}

// Set overwrites what SetIf compare-and-sets.
func (s *KV) Set(ctx context.Context, key, value string) error {
	_, err := s.db.ExecContext(ctx, "INSERT INTO "+s.table+" (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2", key, value) // want `DSQL003 unfenced-write: value is compare-and-set: runtime.go:17 compare-and-sets value; this upsert changes value .* add .WHERE value = \$3. to DO UPDATE`
	return err
}

// The same through fmt.Sprintf's verb.
func (s *KV) Touch(ctx context.Context, key, value string) error {
	_, err := s.db.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET value = $1 WHERE key = $2", s.table), value, key) // want `DSQL003 unfenced-write: value is compare-and-set`
	return err
}

// Negative twin: a table a parameter names could be any table.
func overwrite(ctx context.Context, db *sql.DB, table, key, value string) error {
	_, err := db.ExecContext(ctx, "UPDATE "+table+" SET value = $1 WHERE key = $2", value, key)
	return err
}
