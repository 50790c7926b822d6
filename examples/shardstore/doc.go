// Package shardstore is a small persistence layer written for PostgreSQL,
// in the style of a workflow engine's shard and lease tables, bundled so
// that `dsqllint ./examples/...` shows what porting it to Aurora DSQL
// involves. Each finding is there on purpose; see the comments.
package shardstore
