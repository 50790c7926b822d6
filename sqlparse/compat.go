package sqlparse

import (
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Class is how transaction rules see a statement: DSQL allows one DDL
// statement per transaction and no DDL and DML in the same transaction.
type Class uint8

const (
	ClassNone  Class = iota // SELECT, SET, SHOW, SAVEPOINT, unparsed text ...
	ClassDDL                // schema changes, GRANT and REVOKE
	ClassDML                // INSERT, UPDATE, DELETE, MERGE, COPY ... FROM
	ClassBegin              // BEGIN, START TRANSACTION
	ClassEnd                // COMMIT, ROLLBACK, END, ABORT
)

// Facts is what the compatibility rules read of a statement besides its
// locks and writes: its class and command tag, the calls and clauses DSQL
// rejects, and the DDL model. Every Span is in source offsets.
type Facts struct {
	Class Class
	// Tag names the command the way PostgreSQL's command tags do:
	// "CREATE TABLE", "TRUNCATE TABLE", "SELECT INTO", "CREATE MATERIALIZED
	// VIEW", "ANALYZE". Empty for unparsed text.
	Tag string
	// Calls are the calls of watched functions (advisory locks, pg_notify,
	// lastval, full-text search with a configuration), found in the tokens
	// so that unparsed text has them too.
	Calls []Call
	// Geometric are the uses of geometric types at query time: casts
	// (::point, CAST(x AS box), point '(1,2)') and constructors (line(...),
	// circle(...)).
	Geometric []TypeUse
	// Clauses are statement-level clauses found in the tokens
	// ("TABLESAMPLE").
	Clauses []Clause
	// Holes marks a statement with a printf verb or a non-constant operand
	// in it: part of its text is not known.
	Holes bool
	// Language is the lower-cased LANGUAGE of CREATE FUNCTION / PROCEDURE
	// and DO ("plpgsql" for a DO block without one); empty when not given.
	Language string
	// CopyFile marks COPY to or from a server file or a program.
	CopyFile bool
	// At most one of these is set, for the statements they describe.
	Table        *TableDef     // CREATE TABLE
	Index        *IndexDef     // CREATE INDEX
	Sequence     *SequenceDef  // CREATE SEQUENCE, ALTER SEQUENCE
	Alter        *AlterDef     // ALTER TABLE, ALTER INDEX
	Truncate     *TruncateDef  // TRUNCATE
	InsertSelect *InsertSelect // INSERT ... SELECT
	Drop         *DropDef      // DROP TABLE, DROP TYPE, DROP TRIGGER, ...
	// RenameType marks ALTER TYPE ... RENAME.
	RenameType bool
	// geometric marks a statement whose tokens name a geometric type:
	// its tree is searched for their uses.
	geometric bool
}

// Call is a call of a watched function.
type Call struct {
	Name string // lower-cased, without schema
	Span Span   // the function name
	// Arg is the first argument when it is a string literal: the text
	// search configuration of to_tsvector('english', ...).
	Arg string
}

// TypeUse is a type named in an expression: Name lower-cased, Span the
// name.
type TypeUse struct {
	Name string
	Span Span
}

// DropDef describes DROP of an object.
type DropDef struct {
	Object   string // "TYPE", "TRIGGER", "DOMAIN", ...
	IfExists bool
}

// Clause is a clause found in a statement, named in upper case:
// "TEMPORARY", "PARTITION BY", "USING", "DESC", "WHERE".
type Clause struct {
	Name string
	Span Span
}

// InsertSelect describes INSERT ... SELECT (not INSERT ... VALUES).
type InsertSelect struct {
	ReadsTable bool // the SELECT reads a table (not only functions or constants)
	// Limit marks a SELECT with LIMIT / FETCH FIRST, or one that yields one
	// row: an aggregate without GROUP BY (SELECT sum(n) FROM t).
	Limit bool
	// From is the one table a plain SELECT reads (no join, no set
	// operation, no GROUP BY, no set-returning function in its list:
	// SELECT unnest(...) makes rows of one), and Conds its WHERE: a key
	// they pin yields one row.
	From  Table
	Conds []Cond
}

// TruncateDef describes TRUNCATE.
type TruncateDef struct {
	Tables  int  // relations named
	Restart bool // RESTART IDENTITY
	Cascade bool
	// Words covers TRUNCATE [TABLE].
	Words Span
	// Plain marks `TRUNCATE [TABLE] [ONLY] name` with nothing after the name.
	Plain bool
}

// compat fills st.Facts from the parsed node.
func (b *builder) compat(st *Statement, node *pg.Node) {
	f := tokenFacts(b.text, b.toks)
	st.Facts = f
	f.Class = classOf(st.Node, node)
	if st.Tx != nil {
		switch st.Tx.Kind {
		case TxBegin:
			f.Class = ClassBegin
		case TxCommit, TxRollback:
			f.Class = ClassEnd
		}
	}
	f.Tag = tagOf(st.Node, node)
	switch {
	case node.GetCreateStmt() != nil:
		f.Table = b.tableDef(node.GetCreateStmt())
	case node.GetIndexStmt() != nil:
		f.Index = b.indexDef(node.GetIndexStmt())
	case node.GetCreateSeqStmt() != nil:
		f.Sequence = b.sequenceDef(node.GetCreateSeqStmt().Options, false)
	case node.GetAlterSeqStmt() != nil:
		f.Sequence = b.sequenceDef(node.GetAlterSeqStmt().Options, true)
	case node.GetAlterTableStmt() != nil:
		f.Alter = b.alterDef(node.GetAlterTableStmt())
	case node.GetRenameStmt() != nil && node.GetRenameStmt().RenameType == pg.ObjectType_OBJECT_INDEX:
		f.Alter = &AlterDef{Index: true}
	case node.GetTruncateStmt() != nil:
		f.Truncate = b.truncateDef(node.GetTruncateStmt())
	case node.GetInsertStmt() != nil:
		f.InsertSelect = b.insertSelect(node.GetInsertStmt())
	case node.GetCreateFunctionStmt() != nil:
		f.Language = language(node.GetCreateFunctionStmt().Options)
	case node.GetDoStmt() != nil:
		f.Language = language(node.GetDoStmt().Args)
		if f.Language == "" {
			f.Language = "plpgsql"
		}
	case node.GetCopyStmt() != nil:
		c := node.GetCopyStmt()
		f.CopyFile = c.IsProgram || c.Filename != ""
	case node.GetDropStmt() != nil:
		d := node.GetDropStmt()
		obj := strings.ReplaceAll(strings.TrimPrefix(d.RemoveType.String(), "OBJECT_"), "_", " ")
		if obj == "MATVIEW" {
			obj = "MATERIALIZED VIEW"
		}
		f.Drop = &DropDef{Object: obj, IfExists: d.MissingOk}
		f.Tag = "DROP " + obj
	case node.GetRenameStmt() != nil:
		switch node.GetRenameStmt().RenameType {
		case pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_ATTRIBUTE:
			f.RenameType, f.Tag = true, "ALTER TYPE"
		}
	}
	if f.geometric {
		b.geometricUses(f, node)
	}
}

// geometricTypes are PostgreSQL's geometric types, which Aurora DSQL does
// not have at all (0A000 datatype line not supported).
var geometricTypes = map[string]bool{"point": true, "line": true, "lseg": true, "box": true, "path": true, "polygon": true, "circle": true}

// geometricUse reports whether toks[i], a geometric type's name, reads
// like a use of the type: point(...), point '...', ::point, AS point).
func geometricUse(text string, toks []Token, i int) bool {
	if j := significant(toks, i+1, 1); j >= 0 {
		switch t := toks[j]; {
		case t.Kind == TokString, t.Kind == TokPunct && text[t.Start] == '(':
			return true
		}
	}
	if j := significant(toks, i-1, -1); j >= 0 {
		t := toks[j]
		return t.Kind == TokPunct && text[t.Start:t.End] == "::" || t.Kind == TokIdent && strings.EqualFold(text[t.Start:t.End], "as")
	}
	return false
}

// geometricUses finds the casts to geometric types and the calls of their
// constructors in the statement's tree. Column types are DSQL107's.
func (b *builder) geometricUses(f *Facts, node *pg.Node) {
	add := func(name string, loc int32) {
		if i := b.tokLoc(loc); i >= 0 {
			f.Geometric = append(f.Geometric, TypeUse{name, b.span(i)})
		}
	}
	walkMessages(node.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg.TypeCast:
			if tn := x.TypeName; tn != nil && len(tn.Names) > 0 {
				name := strings.ToLower(tn.Names[len(tn.Names)-1].GetString_().GetSval())
				schema := ""
				if len(tn.Names) > 1 {
					schema = tn.Names[0].GetString_().GetSval()
				}
				if geometricTypes[name] && (schema == "" || schema == "pg_catalog") {
					add(name, tn.Location)
				}
			}
		case *pg.FuncCall:
			if len(x.Funcname) == 1 || (len(x.Funcname) == 2 && x.Funcname[0].GetString_().GetSval() == "pg_catalog") {
				name := strings.ToLower(x.Funcname[len(x.Funcname)-1].GetString_().GetSval())
				if geometricTypes[name] {
					add(name, x.Location)
				}
			}
		}
	})
}

// textSearchFuncs take a text search configuration as their first
// argument; Aurora DSQL has none (42704 text search configuration
// "english" does not exist).
var textSearchFuncs = map[string]bool{"to_tsvector": true, "to_tsquery": true, "plainto_tsquery": true,
	"phraseto_tsquery": true, "websearch_to_tsquery": true}

// tokenFacts is what the tokens alone tell: watched calls and clauses.
// It is all an unparsed statement has.
func tokenFacts(text string, toks []Token) *Facts {
	f := &Facts{Holes: strings.Contains(text, HoleIdent)}
	for i, t := range toks {
		if t.Kind != TokIdent || t.End-t.Start < 3 {
			continue
		}
		w := text[t.Start:t.End]
		if t.End-t.Start <= 7 {
			if !f.geometric && geometricTypes[strings.ToLower(w)] {
				f.geometric = geometricUse(text, toks, i)
			}
			if t.End-t.Start < 7 {
				continue
			}
		}
		switch c := w[0] | 0x20; {
		case textSearchFuncs[strings.ToLower(w)]:
			if j := significant(toks, i+1, 1); j >= 0 && toks[j].Kind == TokPunct && text[toks[j].Start] == '(' {
				call := Call{Name: strings.ToLower(w), Span: Span{t.Start, t.End}}
				if k := significant(toks, j+1, 1); k >= 0 && toks[k].Kind == TokString {
					if n := significant(toks, k+1, 1); n >= 0 && toks[n].Kind == TokPunct && (text[toks[n].Start] == ',' || strings.HasPrefix(text[toks[n].Start:toks[n].End], "::")) {
						call.Arg = strings.Trim(text[toks[k].Start:toks[k].End], "'")
					}
				}
				if call.Arg != "" {
					f.Calls = append(f.Calls, call)
				}
			}
		case c == 'p' && (hasPrefixFold(w, "pg_advisory_") || hasPrefixFold(w, "pg_try_advisory_") || strings.EqualFold(w, "pg_notify")),
			c == 'l' && strings.EqualFold(w, "lastval"):
			if j := significant(toks, i+1, 1); j >= 0 && toks[j].Kind == TokPunct && text[toks[j].Start] == '(' {
				f.Calls = append(f.Calls, Call{Name: strings.ToLower(w), Span: Span{t.Start, t.End}})
			}
		case c == 't' && strings.EqualFold(w, "tablesample"):
			f.Clauses = append(f.Clauses, Clause{"TABLESAMPLE", Span{t.Start, t.End}})
		}
	}
	return f
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// classOf classifies a parsed statement for the transaction rules;
// transaction control is classed from the statement's TxControl.
func classOf(name string, node *pg.Node) Class {
	switch name {
	case "InsertStmt", "UpdateStmt", "DeleteStmt", "MergeStmt":
		return ClassDML
	case "CopyStmt":
		if node.GetCopyStmt().IsFrom {
			return ClassDML
		}
		return ClassNone
	case "SelectStmt":
		if node.GetSelectStmt().IntoClause != nil {
			return ClassDDL // SELECT INTO creates a table
		}
		return ClassNone
	case "CreatedbStmt", "DropdbStmt", "AlterSystemStmt", "CreateTableSpaceStmt", "DropTableSpaceStmt",
		"AlterDatabaseStmt", "AlterDatabaseSetStmt", "AlterDatabaseRefreshCollStmt":
		return ClassNone // cannot run inside a transaction block at all
	case "IndexStmt", "ViewStmt", "DefineStmt", "RuleStmt", "CompositeTypeStmt", "SecLabelStmt",
		"ReassignOwnedStmt", "ImportForeignSchemaStmt", "RefreshMatViewStmt", "CommentStmt":
		return ClassDDL
	}
	for _, p := range []string{"Create", "Alter", "Drop", "Rename", "Grant"} {
		if strings.HasPrefix(name, p) {
			return ClassDDL
		}
	}
	return ClassNone
}

// tags are command tags of statements whose node alone decides the tag.
var tags = map[string]string{
	"SelectStmt": "SELECT", "InsertStmt": "INSERT", "UpdateStmt": "UPDATE", "DeleteStmt": "DELETE",
	"MergeStmt": "MERGE", "CreateStmt": "CREATE TABLE", "IndexStmt": "CREATE INDEX",
	"AlterTableStmt": "ALTER TABLE", "CreateSeqStmt": "CREATE SEQUENCE", "AlterSeqStmt": "ALTER SEQUENCE",
	"TruncateStmt": "TRUNCATE TABLE", "AlterSystemStmt": "ALTER SYSTEM", "CreateExtensionStmt": "CREATE EXTENSION",
	"CreateTrigStmt": "CREATE TRIGGER", "CreateEventTrigStmt": "CREATE EVENT TRIGGER",
	"ListenStmt": "LISTEN", "NotifyStmt": "NOTIFY", "UnlistenStmt": "UNLISTEN",
	"CreateEnumStmt": "CREATE TYPE", "CompositeTypeStmt": "CREATE TYPE", "CreateRangeStmt": "CREATE TYPE",
	"AlterEnumStmt": "ALTER TYPE", "CreatedbStmt": "CREATE DATABASE", "CreateTableSpaceStmt": "CREATE TABLESPACE",
	"DeclareCursorStmt": "DECLARE CURSOR", "PrepareStmt": "PREPARE", "ExecuteStmt": "EXECUTE",
	"DiscardStmt": "DISCARD", "LoadStmt": "LOAD", "CopyStmt": "COPY",
	"RefreshMatViewStmt": "REFRESH MATERIALIZED VIEW", "CreatePolicyStmt": "CREATE POLICY",
	"AlterPolicyStmt": "ALTER POLICY", "DoStmt": "DO", "CreateForeignTableStmt": "CREATE FOREIGN TABLE",
	"CreateForeignServerStmt": "CREATE SERVER", "CreateFdwStmt": "CREATE FOREIGN DATA WRAPPER",
	"CreateUserMappingStmt": "CREATE USER MAPPING", "ImportForeignSchemaStmt": "IMPORT FOREIGN SCHEMA",
	"CreateStatsStmt": "CREATE STATISTICS", "AlterStatsStmt": "ALTER STATISTICS", "LockStmt": "LOCK TABLE",
	"ViewStmt": "CREATE VIEW", "CreateSchemaStmt": "CREATE SCHEMA", "CreateDomainStmt": "CREATE DOMAIN",
	"CommentStmt": "COMMENT", "DropStmt": "DROP", "RenameStmt": "ALTER", "VariableSetStmt": "SET",
	"VariableShowStmt": "SHOW", "ExplainStmt": "EXPLAIN", "CallStmt": "CALL", "CreateRoleStmt": "CREATE ROLE",
	"GrantRoleStmt": "GRANT",
}

// tagOf returns the command tag of a parsed statement.
func tagOf(name string, node *pg.Node) string {
	switch name {
	case "":
		return ""
	case "SelectStmt":
		if node.GetSelectStmt().IntoClause != nil {
			return "SELECT INTO"
		}
	case "VacuumStmt":
		if node.GetVacuumStmt().IsVacuumcmd {
			return "VACUUM"
		}
		return "ANALYZE"
	case "CreateTableAsStmt":
		if node.GetCreateTableAsStmt().Objtype == pg.ObjectType_OBJECT_MATVIEW {
			return "CREATE MATERIALIZED VIEW"
		}
		return "CREATE TABLE AS"
	case "CreateFunctionStmt":
		if node.GetCreateFunctionStmt().IsProcedure {
			return "CREATE PROCEDURE"
		}
		return "CREATE FUNCTION"
	case "DefineStmt":
		switch node.GetDefineStmt().Kind {
		case pg.ObjectType_OBJECT_TYPE:
			return "CREATE TYPE"
		case pg.ObjectType_OBJECT_COLLATION:
			return "CREATE COLLATION"
		}
		return "CREATE"
	case "DeallocateStmt":
		if node.GetDeallocateStmt().Isall {
			return "DEALLOCATE ALL"
		}
		return "DEALLOCATE"
	case "GrantStmt":
		if node.GetGrantStmt().IsGrant {
			return "GRANT"
		}
		return "REVOKE"
	case "GrantRoleStmt":
		if !node.GetGrantRoleStmt().IsGrant {
			return "REVOKE"
		}
	case "AlterTableStmt":
		if node.GetAlterTableStmt().Objtype == pg.ObjectType_OBJECT_INDEX {
			return "ALTER INDEX"
		}
	case "RenameStmt":
		// PostgreSQL's tag names the object renamed, or the relation
		// whose column or constraint is (ALTER TABLE t RENAME TO u).
		r := node.GetRenameStmt()
		t := r.RenameType
		if t == pg.ObjectType_OBJECT_COLUMN || t == pg.ObjectType_OBJECT_TABCONSTRAINT || t == pg.ObjectType_OBJECT_ATTRIBUTE {
			t = r.RelationType
		}
		if tag, ok := renameTags[t]; ok {
			return tag
		}
	case "TransactionStmt":
		switch node.GetTransactionStmt().Kind {
		case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
			return "BEGIN"
		case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
			return "COMMIT"
		case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
			return "ROLLBACK"
		}
		return "TRANSACTION"
	}
	if t, ok := tags[name]; ok {
		return t
	}
	return strings.ToUpper(strings.TrimSuffix(name, "Stmt"))
}

var renameTags = map[pg.ObjectType]string{
	pg.ObjectType_OBJECT_TABLE: "ALTER TABLE", pg.ObjectType_OBJECT_INDEX: "ALTER INDEX", pg.ObjectType_OBJECT_VIEW: "ALTER VIEW",
	pg.ObjectType_OBJECT_MATVIEW: "ALTER MATERIALIZED VIEW", pg.ObjectType_OBJECT_SEQUENCE: "ALTER SEQUENCE",
	pg.ObjectType_OBJECT_TYPE: "ALTER TYPE", pg.ObjectType_OBJECT_DOMAIN: "ALTER DOMAIN", pg.ObjectType_OBJECT_SCHEMA: "ALTER SCHEMA",
	pg.ObjectType_OBJECT_FUNCTION: "ALTER FUNCTION", pg.ObjectType_OBJECT_TRIGGER: "ALTER TRIGGER",
}

// language reads the LANGUAGE option of a function or DO block.
func language(opts []*pg.Node) string {
	for _, o := range opts {
		if de := o.GetDefElem(); de != nil && de.Defname == "language" {
			return strings.ToLower(de.Arg.GetString_().GetSval())
		}
	}
	return ""
}

func (b *builder) insertSelect(ins *pg.InsertStmt) *InsertSelect {
	sel := ins.SelectStmt.GetSelectStmt()
	if sel == nil || len(sel.ValuesLists) > 0 {
		return nil
	}
	is := &InsertSelect{ReadsTable: readsTable(sel, withQueries(ins.ProtoReflect()), 0), Limit: sel.LimitCount != nil || oneRow(sel)}
	if len(sel.FromClause) == 1 && sel.FromClause[0].GetRangeVar() != nil && sel.Op == pg.SetOperation_SETOP_NONE &&
		len(sel.GroupClause) == 0 && sel.WhereClause != nil && !setReturning(sel.TargetList) {
		is.From = b.table(sel.FromClause[0].GetRangeVar())
		is.Conds = conds(sel.WhereClause, is.From, false)
	}
	return is
}

// setReturning reports a target list that calls a function returning
// rows (unnest, generate_series, jsonb_array_elements, ...): one input
// row makes many.
func setReturning(targets []*pg.Node) bool {
	found := false
	for _, t := range targets {
		walkMessages(t.ProtoReflect(), func(m protoreflect.Message) {
			if fc, ok := m.Interface().(*pg.FuncCall); ok && setReturningFuncs[strings.ToLower(opName(fc.Funcname))] {
				found = true
			}
		})
	}
	return found
}

var setReturningFuncs = map[string]bool{
	"unnest": true, "generate_series": true, "generate_subscripts": true, "regexp_split_to_table": true, "string_to_table": true,
	"regexp_matches": true, "json_array_elements": true, "jsonb_array_elements": true, "json_array_elements_text": true,
	"jsonb_array_elements_text": true, "json_each": true, "jsonb_each": true, "json_each_text": true, "jsonb_each_text": true,
	"json_object_keys": true, "jsonb_object_keys": true, "json_populate_recordset": true, "jsonb_populate_recordset": true,
	"json_to_recordset": true, "jsonb_to_recordset": true, "jsonb_path_query": true,
}

var aggregates = map[string]bool{
	"count": true, "sum": true, "min": true, "max": true, "avg": true, "bool_and": true, "bool_or": true,
	"every": true, "string_agg": true, "array_agg": true, "json_agg": true, "jsonb_agg": true,
	"json_object_agg": true, "jsonb_object_agg": true, "bit_and": true, "bit_or": true,
}

// oneRow reports a SELECT that yields exactly one row: an aggregate over
// the whole input, without GROUP BY.
func oneRow(sel *pg.SelectStmt) bool {
	if len(sel.GroupClause) > 0 || sel.Op != pg.SetOperation_SETOP_NONE {
		return false
	}
	for _, t := range sel.TargetList {
		v := t.GetResTarget().GetVal()
		for v.GetTypeCast() != nil {
			v = v.GetTypeCast().Arg
		}
		if fc := v.GetFuncCall(); fc != nil && fc.Over == nil && aggregates[strings.ToLower(opName(fc.Funcname))] {
			return true
		}
	}
	return false
}

// readsTable reports whether a SELECT (or an arm of a set operation) reads
// a relation in its FROM clause.
//
// A WITH query it names (ctes) reads a table when its SELECT does; an
// INSERT ... VALUES RETURNING yields the rows it inserted, and any other
// data-modifying WITH query counts as a table.
func readsTable(sel *pg.SelectStmt, ctes map[string]*pg.Node, depth int) bool {
	if sel == nil || depth > 50 {
		return false
	}
	if sel.Larg != nil || sel.Rarg != nil {
		return readsTable(sel.Larg, ctes, depth+1) || readsTable(sel.Rarg, ctes, depth+1)
	}
	var from func(n *pg.Node) bool
	from = func(n *pg.Node) bool {
		switch {
		case n.GetRangeVar() != nil:
			rv := n.GetRangeVar()
			q, isCTE := ctes[strings.ToLower(rv.Relname)]
			switch {
			case !isCTE || rv.Schemaname != "":
				return true
			case q.GetSelectStmt() != nil:
				return readsTable(q.GetSelectStmt(), ctes, depth+1)
			case q.GetInsertStmt() != nil:
				vs := q.GetInsertStmt().SelectStmt.GetSelectStmt()
				return vs == nil || len(vs.ValuesLists) == 0
			}
			return true
		case n.GetJoinExpr() != nil:
			return from(n.GetJoinExpr().Larg) || from(n.GetJoinExpr().Rarg)
		case n.GetRangeSubselect() != nil:
			return readsTable(n.GetRangeSubselect().Subquery.GetSelectStmt(), ctes, depth+1)
		}
		return false
	}
	for _, n := range sel.FromClause {
		if from(n) {
			return true
		}
	}
	return false
}

// Token helpers of the builder, over the statement's tokens.

// tokAt returns the index of the token that contains offset off, or -1.
func (b *builder) tokAt(off int) int {
	i := sort.Search(len(b.toks), func(i int) bool { return b.toks[i].End > off })
	if i >= len(b.toks) || b.toks[i].Start > off {
		return -1
	}
	return i
}

// at converts a parser location to an offset of the text; ok is false for
// unknown (negative) locations.
func (b *builder) at(l int32) (int, bool) {
	if l < 0 || int(l) < b.offset {
		return 0, false
	}
	return b.loc(l), true
}

// tokLoc returns the index of the token at a parser location, or -1.
func (b *builder) tokLoc(l int32) int {
	off, ok := b.at(l)
	if !ok {
		return -1
	}
	return b.tokAt(off)
}

func (b *builder) next(i int) int {
	if i < 0 {
		return -1
	}
	return significant(b.toks, i+1, 1)
}

func (b *builder) prev(i int) int {
	if i <= 0 {
		return -1
	}
	return significant(b.toks, i-1, -1)
}

func (b *builder) word(i int, w string) bool {
	return i >= 0 && i < len(b.toks) && b.toks[i].Kind == TokIdent && strings.EqualFold(b.toks[i].Text(b.text), w)
}

func (b *builder) punct(i int, c byte) bool {
	return i >= 0 && i < len(b.toks) && b.toks[i].Kind == TokPunct && b.text[b.toks[i].Start] == c
}

func (b *builder) span(i int) Span {
	if i < 0 || i >= len(b.toks) {
		return Span{}
	}
	return Span{b.toks[i].Start, b.toks[i].End}
}

func (b *builder) spanOf(i, j int) Span {
	if i < 0 || j < 0 || i >= len(b.toks) || j >= len(b.toks) || j < i {
		return b.span(i)
	}
	return Span{b.toks[i].Start, b.toks[j].End}
}

// matching returns the index of the ')' that closes the '(' at i, or -1.
func (b *builder) matching(i int) int {
	depth := 0
	for k := i; k >= 0 && k < len(b.toks); k++ {
		switch {
		case b.punct(k, '('):
			depth++
		case b.punct(k, ')'):
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// nameEnd returns the index of the last token of a possibly qualified name
// whose first token is i.
func (b *builder) nameEnd(i int) int {
	for {
		d := b.next(i)
		if !b.punct(d, '.') {
			return i
		}
		n := b.next(d)
		if n < 0 || (b.toks[n].Kind != TokIdent && b.toks[n].Kind != TokQuoted) {
			return i
		}
		i = n
	}
}

// topLevel returns the index of the first word w at parenthesis depth 0
// at or after token from, or -1.
func (b *builder) topLevel(from int, w string) int {
	if from < 0 || from >= len(b.toks) {
		return -1
	}
	sp := b.keywordAt(b.toks[from].Start, w)
	if sp == (Span{}) {
		return -1
	}
	return b.tokAt(sp.Start)
}

// lastSignificant returns the index of the statement's last token that is
// not space or comment.
func (b *builder) lastSignificant() int {
	return significant(b.toks, len(b.toks)-1, -1)
}

func (f *Facts) translate(sp func(Span) Span, off func(int) int) *Facts {
	if f == nil {
		return nil
	}
	c := *f
	c.Calls = make([]Call, len(f.Calls))
	for i, x := range f.Calls {
		c.Calls[i] = Call{x.Name, sp(x.Span), x.Arg}
	}
	c.Geometric = make([]TypeUse, len(f.Geometric))
	for i, x := range f.Geometric {
		c.Geometric[i] = TypeUse{x.Name, sp(x.Span)}
	}
	c.Clauses = translateClauses(f.Clauses, sp)
	if f.Table != nil {
		c.Table = f.Table.translate(sp, off)
	}
	if f.Index != nil {
		x := *f.Index
		x.Words = sp(x.Words)
		x.Clauses = translateClauses(x.Clauses, sp)
		c.Index = &x
	}
	if f.Sequence != nil {
		x := *f.Sequence
		x.Words = sp(x.Words)
		x.Options = f.Sequence.Options.translate(sp, off)
		c.Sequence = &x
	}
	if f.Alter != nil {
		x := *f.Alter
		x.Words = sp(x.Words)
		x.Cmds = make([]AlterCmd, len(f.Alter.Cmds))
		for i, cmd := range f.Alter.Cmds {
			cmd.Span = sp(cmd.Span)
			if cmd.Column != nil {
				col := cmd.Column.translate(sp, off)
				cmd.Column = &col
			}
			if cmd.Constraint != nil {
				con := cmd.Constraint.translate(sp, off)
				cmd.Constraint = &con
			}
			x.Cmds[i] = cmd
		}
		c.Alter = &x
	}
	if f.Truncate != nil {
		x := *f.Truncate
		x.Words = sp(x.Words)
		c.Truncate = &x
	}
	return &c
}

func translateClauses(cs []Clause, sp func(Span) Span) []Clause {
	if cs == nil {
		return nil
	}
	out := make([]Clause, len(cs))
	for i, c := range cs {
		out[i] = Clause{c.Name, sp(c.Span)}
	}
	return out
}

// String describes a class, for tests and messages.
func (c Class) String() string {
	switch c {
	case ClassDDL:
		return "DDL"
	case ClassDML:
		return "DML"
	case ClassBegin:
		return "BEGIN"
	case ClassEnd:
		return "END"
	}
	return "none"
}

// advisory reports a call of an advisory lock function.
func (f *Facts) advisory() bool {
	for _, c := range f.Calls {
		if IsAdvisoryLock(c.Name) {
			return true
		}
	}
	return false
}

// IsAdvisoryLock reports an advisory lock function's name (lower-cased):
// pg_advisory_lock, pg_try_advisory_xact_lock_shared, ... but not the
// unlock functions.
func IsAdvisoryLock(name string) bool {
	return (strings.HasPrefix(name, "pg_advisory_") || strings.HasPrefix(name, "pg_try_advisory_")) && !strings.Contains(name, "unlock")
}
