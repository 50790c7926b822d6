package lockretry

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Adapters hand statements back in a struct; the subscriber concatenates
// one into another and runs the result in its own transaction.
type query struct {
	Query string
	Args  []any
}

type offsetsAdapter interface {
	NextOffsetQuery(topic, group string) query
}

type schemaAdapter interface {
	SelectQuery(topic, group string, next query) query
}

type pgOffsets struct{}

func (pgOffsets) NextOffsetQuery(topic, group string) query {
	return query{
		Query: `SELECT offset_consumed FROM ` + offsetsTable(topic) + ` WHERE consumer_group = $1 FOR UPDATE`, // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at adapters.go:59`
		Args:  []any{group},
	}
}

// The dialect without row locks: the fuller text is the one judged.
type sqliteOffsets struct{}

func (sqliteOffsets) NextOffsetQuery(topic, group string) query {
	return query{Query: `SELECT offset_consumed FROM ` + offsetsTable(topic) + ` WHERE consumer_group = $1`, Args: []any{group}}
}

func offsetsTable(topic string) string { return "offsets_" + strings.ReplaceAll(topic, "-", "_") }

type pgSchema struct{}

func (pgSchema) SelectQuery(topic, group string, next query) query {
	return query{
		Query: fmt.Sprintf(`WITH last AS (%s) SELECT msg_offset, payload FROM messages_%s WHERE msg_offset > (SELECT offset_consumed FROM last) ORDER BY msg_offset LIMIT 1`, next.Query, topic),
		Args:  next.Args,
	}
}

type subscriber struct {
	db      *sql.DB
	offsets offsetsAdapter
	schema  schemaAdapter
}

func (s *subscriber) consume(ctx context.Context, topic, group string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	next := s.offsets.NextOffsetQuery(topic, group)
	sel := s.schema.SelectQuery(topic, group, next)
	rows, err := tx.QueryContext(ctx, sel.Query, sel.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return tx.Commit()
}

// Negative twin: the same subscriber reading without the offsets lock.
func (s *subscriber) peek(ctx context.Context, topic string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q := s.schema.SelectQuery(topic, "", query{Query: "SELECT 0 AS offset_consumed"})
	rows, err := tx.QueryContext(ctx, q.Query, q.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return tx.Commit()
}
