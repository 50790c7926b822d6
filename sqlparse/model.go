package sqlparse

// Kind is the kind of a statement.
type Kind uint8

const (
	KindUnparsed Kind = iota // did not parse; only tokens are known
	KindSelect
	KindInsert
	KindUpdate
	KindDelete
	KindOther // any other statement that parsed (DDL, utility, ...)
)

func (k Kind) String() string {
	return [...]string{"unparsed", "SELECT", "INSERT", "UPDATE", "DELETE", "other"}[k]
}

// Strength is the strength of a row-locking clause.
type Strength uint8

const (
	ForUpdate Strength = iota + 1
	ForNoKeyUpdate
	ForShare
	ForKeyShare
	LockInShareMode // MySQL; a syntax error on PostgreSQL
)

func (s Strength) String() string {
	switch s {
	case ForUpdate:
		return "FOR UPDATE"
	case ForNoKeyUpdate:
		return "FOR NO KEY UPDATE"
	case ForShare:
		return "FOR SHARE"
	case ForKeyShare:
		return "FOR KEY SHARE"
	case LockInShareMode:
		return "LOCK IN SHARE MODE"
	}
	return "?"
}

// WaitPolicy is a locking clause's NOWAIT / SKIP LOCKED option.
type WaitPolicy uint8

const (
	WaitBlock WaitPolicy = iota
	WaitSkipLocked
	WaitNoWait
)

// Lock is one row-locking clause of a SELECT.
type Lock struct {
	Strength Strength
	Wait     WaitPolicy
	// Span covers the clause's strength words, e.g. `FOR NO KEY UPDATE`
	// (across line breaks and comments), in source offsets.
	Span Span
	// Words are the clause's words (FOR, NO, KEY, UPDATE, SHARE; or LOCK,
	// IN, SHARE, MODE), so that a fix can edit one word and keep the
	// spacing and line breaks between them.
	Words []Span
	// WaitSpan covers NOWAIT or SKIP LOCKED when present.
	WaitSpan Span
	// Of lists the relations named by OF, lower-cased.
	Of []string
	// Select is the SELECT the clause belongs to.
	Select *Select
	// Deleted marks a lock whose rows a DELETE of the same statement
	// removes.
	Deleted bool
}

// Table is a relation reference.
type Table struct {
	Schema, Name, Alias string // lower-cased unless quoted
	Span                Span
}

// Unknown reports whether the name came from a printf verb or a non-constant
// operand, so it does not name a real table.
func (t Table) Unknown() bool { return containsHole(t.Name) }

// Select is a SELECT (at any depth: CTE, subquery, UNION arm) that carries a
// locking clause.
type Select struct {
	Tables []Table // FROM items that are plain relations
	// Columns are the columns the select list reads, lower-cased, "*"
	// for a star; other expressions are left out.
	Columns []string
	HasFrom bool
	Joins   bool // more than one FROM item or any JOIN
	Where   []Cond
	Locks   []*Lock
}

// Op is a comparison operator in a predicate.
type Op uint8

const (
	OpOther Op = iota
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpIn
	OpIsNull
	OpIsNotNull
	OpOr       // a disjunction; see Cond.Or
	OpLike     // LIKE, ILIKE, SIMILAR TO
	OpNotIn    // NOT IN (...), <> ALL (...)
	OpDistinct // IS DISTINCT FROM
)

// ValueKind says what a predicate compares a column with.
type ValueKind uint8

const (
	ValueOther  ValueKind = iota
	ValueCaller           // a parameter, a constant, EXCLUDED.col, or a printf hole
	ValueColumn           // another column
	ValueNow              // now(), current_timestamp and friends
	ValueSubquery
)

// Cond is one conjunct of a WHERE clause that compares a column of the
// statement's target row (or, for Or, a disjunction of conjunct lists).
type Cond struct {
	Column string // lower-cased column name; empty when not a column test
	Op     Op
	Value  ValueKind
	// Arg names the value when it is one placeholder ("$2"), a constant
	// ("'done'", "3", "true") or an upsert's proposed column
	// ("excluded.c"), else "": a comparison with the very value a
	// statement writes is no compare-and-swap.
	Arg string
	Or  [][]Cond
	// InSubquery marks conditions that live only inside EXISTS / IN
	// (SELECT ...) over another table.
	InSubquery bool
}

// Assign is one SET target of an UPDATE or ON CONFLICT DO UPDATE.
type Assign struct {
	Column string
	// Guards are the target-row columns a CASE expression on the right-hand
	// side tests (`worker_id = CASE WHEN expires_at <= $1 THEN ...`).
	Guards []string
	// SelfRef marks a value computed from the column itself (range_id + 1,
	// COALESCE($1, worker_id)); Step one that adds to it or takes from it
	// (n = n + 1, n = n - $1).
	SelfRef, Step bool
	// Copied marks an upsert's copy of the proposed row's own value
	// (`c = EXCLUDED.c`, MySQL's `c = VALUES(c)`): the row is refreshed,
	// not moved to a state the statement decides.
	Copied bool
	// Arg names the value as Cond.Arg does.
	Arg string
}

// Write describes an UPDATE, DELETE or INSERT ... ON CONFLICT DO UPDATE.
type Write struct {
	Kind  Kind // KindUpdate, KindDelete or KindInsert (upsert)
	Table Table
	Sets  []Assign
	// ConflictKey are an upsert's ON CONFLICT (columns).
	ConflictKey []string
	Where       []Cond // nil when the statement has no WHERE
	HasWhere    bool
	// ReadsOthers marks a WHERE whose subquery reads the target table
	// again: a guard over other rows of it (`AND (SELECT count(*) FROM
	// members WHERE ...) > 1`).
	ReadsOthers bool
	// WhereSpan covers the WHERE keyword (source offsets) when present.
	WhereSpan Span
	// Guards are the subqueries over one table that the WHERE tests
	// beside the row's own columns (`AND EXISTS (SELECT 1 FROM leases
	// WHERE resource_id = $3 AND worker_id = $4)`, `AND id IN (SELECT ...)`,
	// `AND (SELECT count(*) FROM members WHERE ...) > 1`): what the write
	// checks elsewhere — in another table, or in other rows of its own —
	// before it changes its row.
	Guards []Guard
}

// Guard is a subquery of a write's WHERE that reads one table.
type Guard struct {
	Table Table
	// Where are its conditions on that table's rows; a comparison with a
	// column of the written row is a ValueColumn.
	Where []Cond
	// Not marks NOT EXISTS / NOT IN: the write happens where no such row
	// is found.
	Not bool
}

// Statement is one SQL statement of a text.
type Statement struct {
	Kind Kind
	// Span is the statement's range; KeywordSpan its first word.
	Span, KeywordSpan Span
	// Node is the pg_query node type name ("SelectStmt", "CreateStmt", ...),
	// empty when unparsed.
	Node string
	// Locks are all row-locking clauses, in source order.
	Locks []*Lock
	// Write is set for UPDATE, DELETE and upserts.
	Write *Write
	// Filters are the names, lower-cased, that a SELECT mentions after its
	// first WHERE: which columns the code looks rows up by, whatever the
	// table (the rules tell payload from state by it).
	Filters []string
	// States are those of Filters the SELECT compares by equality, IN or
	// IS (status = 'ready'), not by range (updated_at < $1): a row's
	// state, not a time.
	States []string
	// Into is the table an INSERT (plain or upsert) adds rows to.
	Into *Table
	// Reads are the tables a SELECT that takes an advisory lock reads (a
	// queue that claims its rows with pg_try_advisory_lock(id)), or that
	// LOCK TABLE locks.
	Reads []Table
	// Create is set for CREATE TABLE.
	Create *CreateTable
	// Changes are what a DDL statement does to the shape of tables
	// (schema.go), for the schema catalog.
	Changes []Change
	// Tx is set for transaction control: BEGIN, SAVEPOINT, SET TRANSACTION...
	Tx *TxControl
	// ParseError is the parser's message when Kind is KindUnparsed.
	ParseError string
	// Fragment marks a text that is only part of a statement (a WHERE
	// clause, a bare locking clause) that code appends to a query.
	Fragment bool
	// Facts are what the compatibility rules read: class, command tag,
	// watched calls, the DDL model (compat.go, ddl.go).
	Facts *Facts
	// Place is where the statement falls among the text's transactions
	// (place.go); set by Parse.
	Place Place
}

// Script is the result of parsing one text.
type Script struct {
	// Text is the source text that was parsed.
	Text  string
	Stmts []*Statement
	// Style and MaxParam describe the placeholders used.
	Style    Style
	MaxParam int
	// Skipped says why the text was not parsed (too large, too deep, NUL
	// bytes, invalid UTF-8); Stmts is then empty.
	Skipped string
	// Templates are the text/template actions ({{ .Schema }}, {{ if }}),
	// which the statements read as a name or as nothing.
	Templates []Span
}

// EditsTemplate reports whether replacing sp (inserting, when empty)
// would change a template action: an edit of the text must leave the
// template's own syntax to it.
func (s *Script) EditsTemplate(sp Span) bool {
	for _, a := range s.Templates {
		if (sp.Start < a.End && sp.End > a.Start) || (sp.Start > a.Start && sp.Start < a.End) {
			return true
		}
	}
	return false
}

func containsHole(s string) bool {
	for i := 0; i+len(HoleIdent) <= len(s); i++ {
		if s[i:i+len(HoleIdent)] == HoleIdent {
			return true
		}
	}
	return false
}

// CreateTable is what the rules need of a CREATE TABLE: its columns.
type CreateTable struct {
	Table   Table
	Columns []string // lower-cased
}
