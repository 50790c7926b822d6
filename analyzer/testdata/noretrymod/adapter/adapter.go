// Package adapter hands statements back in a struct through an
// interface, as message libraries' schema adapters do.
package adapter

// Query is a statement and its arguments.
type Query struct {
	SQL  string
	Args []any
}

// Offsets builds the statements of the offsets table.
type Offsets interface {
	NextOffset(group string) Query
}

// Postgres locks the consumer group's offset row.
type Postgres struct{}

func (Postgres) NextOffset(group string) Query {
	return Query{SQL: "SELECT offset_acked FROM offsets WHERE consumer_group = $1 FOR UPDATE", Args: []any{group}} // want `DSQL005 lock-without-retry: .* and nothing in this module retries on SQLSTATE 40001`
}
