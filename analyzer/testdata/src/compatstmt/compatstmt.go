// Package compatstmt holds statements DSQL rejects or limits, in Go
// strings: DSQL104, DSQL105, DSQL109.
package compatstmt

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

func multiStatement(ctx context.Context, db *sql.DB) {
	// One Exec call with several statements runs as one implicit transaction.
	db.ExecContext(ctx, "CREATE TABLE a (id uuid PRIMARY KEY); CREATE INDEX ASYNC a_id ON a (id)") // want `DSQL104 ddl-transaction: CREATE INDEX runs in the same Exec string \(one implicit transaction\) as the CREATE TABLE: Aurora DSQL allows one DDL statement per transaction \(0A000 multiple ddl statements not supported in a transaction\)`
	db.ExecContext(ctx, "CREATE TABLE b (id uuid PRIMARY KEY); INSERT INTO b VALUES (gen_random_uuid())") // want `DSQL104 ddl-transaction: INSERT runs in the same Exec string .* \(0A000 ddl and dml are not supported in the same transaction\)`
	db.ExecContext(ctx, "BEGIN; CREATE TABLE c (id uuid PRIMARY KEY); GRANT SELECT ON c TO reader; COMMIT") // want `DSQL104 ddl-transaction: GRANT runs in the same BEGIN ... COMMIT block as the CREATE TABLE`

	// Negatives: one DDL per transaction, DML with DML, SELECT after DDL.
	db.ExecContext(ctx, "BEGIN; CREATE TABLE d (id uuid PRIMARY KEY); COMMIT; BEGIN; CREATE INDEX ASYNC d_id ON d (id); COMMIT")
	db.ExecContext(ctx, "INSERT INTO a VALUES ($1); UPDATE counters SET n = n + 1 WHERE name = 'a'")
	db.ExecContext(ctx, "CREATE TABLE e (id uuid PRIMARY KEY); SELECT 1")
}

func unsupported(ctx context.Context, db *sql.DB, table string) {
	db.ExecContext(ctx, "TRUNCATE TABLE sessions")                                                   // want `DSQL105 unsupported-statement: TRUNCATE is not supported by Aurora DSQL \(0A000 unsupported statement: Truncate\); use DELETE FROM, but a transaction may modify at most 3,000 rows`
	db.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS \"uuid-ossp\"")                               // want `DSQL105 unsupported-statement: CREATE EXTENSION is not supported by Aurora DSQL \(0A000 unsupported statement: CreateExtension\)`
	db.ExecContext(ctx, "LISTEN job_events")                                                          // want `DSQL105 unsupported-statement: LISTEN is not supported`
	db.ExecContext(ctx, "SELECT pg_notify('job_events', $1)", "42")                                   // want `DSQL105 unsupported-statement: pg_notify\(\) is not supported`
	db.ExecContext(ctx, "VACUUM ANALYZE sessions")                                                    // want `DSQL105 unsupported-statement: VACUUM is not supported`
	db.ExecContext(ctx, "CREATE TABLE sessions_copy AS SELECT * FROM sessions")                       // want `DSQL105 unsupported-statement: CREATE TABLE AS is not supported`
	db.ExecContext(ctx, "DO $$ BEGIN RAISE NOTICE 'hi'; END $$")                                      // want `DSQL105 unsupported-statement: DO is not supported`
	db.ExecContext(ctx, "CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.updated_at = now(); RETURN NEW; END $$") // want `DSQL105 unsupported-statement: CREATE FUNCTION ... LANGUAGE plpgsql is not supported by Aurora DSQL \(0A000 CREATE FUNCTION with language plpgsql not supported\)`

	// Negatives.
	db.ExecContext(ctx, "DELETE FROM sessions WHERE expires_at < now()")
	db.ExecContext(ctx, "ANALYZE sessions")
	db.ExecContext(ctx, "CREATE FUNCTION add(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a + b $$")
	fmt.Println("TRUNCATE the table, then VACUUM it")
}

func rowLimit(ctx context.Context, db *sql.DB, table, where string) {
	db.ExecContext(ctx, "DELETE FROM sessions")                                                      // want `DSQL109 row-limit: DELETE from sessions without WHERE writes every row: Aurora DSQL fails a transaction that modifies more than 3,000 rows \(54000 transaction row limit exceeded\)`
	db.ExecContext(ctx, "UPDATE users SET newsletter = false")                                      // want `DSQL109 row-limit: UPDATE of users without WHERE`
	db.ExecContext(ctx, "INSERT INTO events_archive SELECT * FROM events WHERE at < $1", 0)        // want `DSQL109 row-limit: INSERT ... SELECT from a table with no LIMIT`

	// Negatives: bounded writes, and texts whose WHERE is built elsewhere.
	db.ExecContext(ctx, "DELETE FROM sessions WHERE id = $1", 1)
	db.ExecContext(ctx, "INSERT INTO events_archive SELECT * FROM events WHERE at < $1 ORDER BY id LIMIT 1000", 0)
	db.ExecContext(ctx, "INSERT INTO tags (name) SELECT unnest($1::text[])", nil)
	db.ExecContext(ctx, "DELETE FROM sessions "+where)
	db.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE id = $1", table), 1)

	// A WITH query stands for what it reads: the rows an INSERT ... VALUES
	// returned are bounded, those of a SELECT of a table are not.
	db.ExecContext(ctx, `WITH object AS (INSERT INTO objects (name) VALUES ($1) RETURNING id)
		INSERT INTO object_keys (object_id, k) SELECT id, keys.k FROM object, jsonb_to_recordset($2) keys (k text)`, "n", "[]")
	db.ExecContext(ctx, `WITH old AS (SELECT * FROM events WHERE at < $1) INSERT INTO events_archive SELECT * FROM old`, 0) // want `DSQL109 row-limit: INSERT ... SELECT from a table with no LIMIT`
}

func expressions(ctx context.Context, db *sql.DB, q string) {
	db.QueryContext(ctx, "SELECT id FROM docs WHERE to_tsvector('english', body) @@ plainto_tsquery('english', $1)", q) // want `DSQL111 unsupported-expression: to_tsvector\('english', ...\) fails on Aurora DSQL` `DSQL111 unsupported-expression: plainto_tsquery`
	db.QueryContext(ctx, "SELECT id FROM shops WHERE point(lng, lat) <@ circle(point($1, $2), $3)", 0, 0, 1)             // want `DSQL111 unsupported-expression: type point does not exist on Aurora DSQL` `DSQL111 unsupported-expression: type circle`

	// Negatives: the words as names, and what DSQL evaluates.
	db.QueryContext(ctx, "SELECT path, point FROM files WHERE path = $1", q)
	db.QueryContext(ctx, "SELECT id FROM hosts WHERE $1::inet << '10.0.0.0/8'::inet", q)
	fmt.Println("to_tsvector('english', body) is how PostgreSQL would do it")
}

// A table an unexported package variable names, which nothing in the
// package changes, is as fixed as a constant; one the package sets at
// run time, or hands out by address, is not known.
var (
	schemaName  = "app"
	recordsName = "records"
	scratchName = "scratch"
	flagName    = "flagged"
)

func init() { scratchName = fmt.Sprint("scratch_", 1) }

func setName(p *string) { *p = "other" }

func clearRecords(ctx context.Context, db *sql.DB) {
	setName(&flagName)
	db.ExecContext(ctx, "DELETE FROM "+schemaName+"."+recordsName) // want `DSQL109 row-limit: DELETE from records without WHERE`
	db.ExecContext(ctx, "DELETE FROM "+scratchName)
	db.ExecContext(ctx, "DELETE FROM "+flagName)
}

// A table kept as one row (no key, and nothing picks its rows by a
// column) is updated without WHERE because there is one row; a keyed
// table is not, nor is a one-row table's DELETE.
func versionRow(ctx context.Context, db *sql.DB) {
	db.ExecContext(ctx, "CREATE TABLE migration_info (version bigint NOT NULL)")
	db.ExecContext(ctx, "UPDATE migration_info SET version = $1", 2)
	db.ExecContext(ctx, "DELETE FROM migration_info") // want `DSQL109 row-limit: DELETE from migration_info without WHERE`
	db.ExecContext(ctx, "CREATE TABLE plans (id uuid PRIMARY KEY, tier text)")
	db.ExecContext(ctx, "UPDATE plans SET tier = 'free'") // want `DSQL109 row-limit: UPDATE of plans without WHERE`
}

// A statement a builder assembles: what follows a piece written into it
// may be written elsewhere (a helper's WHERE). The same text run whole
// is reported.
type statementBuilder struct{ strings.Builder }

func writeCondition(b *statementBuilder, cond string) { b.WriteString(" WHERE " + cond) }

func deleteOrg(ctx context.Context, db *sql.DB, id string) {
	var b statementBuilder
	b.WriteString("DELETE FROM organizations")
	writeCondition(&b, "id = $1")
	db.ExecContext(ctx, b.String(), id)
	db.ExecContext(ctx, "DELETE FROM organizations") // want `DSQL109 row-limit: DELETE from organizations without WHERE`
}
