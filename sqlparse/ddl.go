package sqlparse

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// TableDef is CREATE TABLE as the compatibility rules see it.
type TableDef struct {
	Columns []Column
	// Constraints are the table constraints (PRIMARY KEY (a, b), FOREIGN
	// KEY, EXCLUDE ...), not those written on a column.
	Constraints []Constraint
	// Clauses are TEMPORARY, UNLOGGED, PARTITION BY, PARTITION OF,
	// INHERITS, WITH, ON COMMIT and TABLESPACE, where written.
	Clauses []Clause
}

// Column is a column definition of CREATE TABLE or ALTER TABLE ADD COLUMN
// (or the new type of ALTER COLUMN TYPE).
type Column struct {
	Name        string // lower-cased
	Type        TypeRef
	Constraints []Constraint
	// Collate marks a COLLATE clause, at CollateSpan.
	Collate     bool
	CollateSpan Span
}

// TypeRef is a type name as written.
type TypeRef struct {
	// Name is the lower-cased last part of the name as the parser keeps
	// it: "serial", "int4" (for int and integer), "varbit" (for bit
	// varying), "text"; Schema its qualifier ("pg_catalog" for types the
	// grammar spells with keywords).
	Name, Schema string
	Array        bool  // text[], integer ARRAY
	Mods         []int // integer modifiers: numeric(50, 2) has 50, 2
	Span         Span  // the type's first word
}

// ConstraintKind is the kind of a constraint.
type ConstraintKind uint8

const (
	ConNone ConstraintKind = iota
	ConNotNull
	ConNull
	ConDefault
	ConCheck
	ConPrimary
	ConUnique
	ConForeign
	ConExclusion
	ConIdentity  // GENERATED ... AS IDENTITY
	ConGenerated // GENERATED ALWAYS AS (expr) STORED
)

var constraintKinds = map[pg.ConstrType]ConstraintKind{
	pg.ConstrType_CONSTR_NOTNULL: ConNotNull, pg.ConstrType_CONSTR_NULL: ConNull,
	pg.ConstrType_CONSTR_DEFAULT: ConDefault, pg.ConstrType_CONSTR_CHECK: ConCheck,
	pg.ConstrType_CONSTR_PRIMARY: ConPrimary, pg.ConstrType_CONSTR_UNIQUE: ConUnique,
	pg.ConstrType_CONSTR_FOREIGN: ConForeign, pg.ConstrType_CONSTR_EXCLUSION: ConExclusion,
	pg.ConstrType_CONSTR_IDENTITY: ConIdentity, pg.ConstrType_CONSTR_GENERATED: ConGenerated,
}

// Constraint is a column or table constraint.
type Constraint struct {
	Kind ConstraintKind
	// Span covers the constraint's first word (CONSTRAINT, PRIMARY,
	// REFERENCES, FOREIGN, GENERATED, DEFAULT, NOT, CHECK, EXCLUDE).
	Span     Span
	NotValid bool // NOT VALID
	// UsingIndex marks UNIQUE / PRIMARY KEY USING INDEX name.
	UsingIndex bool
	// Identity holds the sequence options of an identity column.
	Identity *SeqOptions
}

// SeqOptions are the sequence options of CREATE/ALTER SEQUENCE or of an
// identity column.
type SeqOptions struct {
	HasCache  bool
	Cache     int64
	CacheSpan Span     // the CACHE value
	As        *TypeRef // CREATE SEQUENCE ... AS type
	// Insert is the source offset where InsertText (upper case) adds an
	// explicit CACHE 1; -1 when no place was found. Like is a word of the
	// statement whose case the insertion should follow.
	Insert     int
	InsertText string
	Like       Span
}

// SequenceDef is CREATE SEQUENCE or ALTER SEQUENCE.
type SequenceDef struct {
	Alter   bool
	Words   Span // CREATE SEQUENCE / ALTER SEQUENCE
	Options *SeqOptions
}

// IndexDef is CREATE [UNIQUE] INDEX.
type IndexDef struct {
	// Async marks DSQL's CREATE INDEX ASYNC.
	Async bool
	// Words covers CREATE [UNIQUE] INDEX; ASYNC goes after it.
	Words Span
	Keys  int // key columns and expressions
	// Clauses are CONCURRENTLY, QUALIFIED (a schema-qualified index name),
	// USING (with its method), and per key EXPRESSION, ASC, DESC, NULLS,
	// OPCLASS, COLLATE; then WHERE.
	Clauses []Clause
}

// AlterKind is the kind of an ALTER TABLE subcommand.
type AlterKind uint8

const (
	AlterOther AlterKind = iota
	AlterAddColumn
	AlterColumnType
	AlterSetNotNull
	AlterSetStatistics
	AlterAddConstraint
	AlterValidate
	AlterDropColumn
	AlterAddIdentity
	AlterRowSecurity // ENABLE / FORCE ROW LEVEL SECURITY
	AlterDropConstraint
)

var alterKinds = map[pg.AlterTableType]AlterKind{
	pg.AlterTableType_AT_AddColumn:          AlterAddColumn,
	pg.AlterTableType_AT_AlterColumnType:    AlterColumnType,
	pg.AlterTableType_AT_SetNotNull:         AlterSetNotNull,
	pg.AlterTableType_AT_SetStatistics:      AlterSetStatistics,
	pg.AlterTableType_AT_AddConstraint:      AlterAddConstraint,
	pg.AlterTableType_AT_ValidateConstraint: AlterValidate,
	pg.AlterTableType_AT_DropColumn:         AlterDropColumn,
	pg.AlterTableType_AT_AddIdentity:        AlterAddIdentity,
	pg.AlterTableType_AT_EnableRowSecurity:  AlterRowSecurity,
	pg.AlterTableType_AT_ForceRowSecurity:   AlterRowSecurity,
	pg.AlterTableType_AT_DropConstraint:     AlterDropConstraint,
}

// AlterCmd is one subcommand of ALTER TABLE.
type AlterCmd struct {
	Kind AlterKind
	// Span covers the subcommand (`ADD COLUMN x int NOT NULL`).
	Span Span
	// Column is the added column (AlterAddColumn) or the new type
	// (AlterColumnType).
	Column *Column
	// Constraint is the added constraint (AlterAddConstraint) or identity
	// (AlterAddIdentity).
	Constraint *Constraint
	// Name is the column or constraint dropped (AlterDropColumn,
	// AlterDropConstraint), as the parser gives it.
	Name string
}

// AlterDef is ALTER TABLE (or ALTER INDEX, which has no subcommands the
// rules look into).
type AlterDef struct {
	Index bool
	// Table is the table altered.
	Table Table
	// Async marks DSQL's ALTER TABLE ASYNC.
	Async bool
	// Words covers ALTER TABLE; ASYNC goes after it.
	Words Span
	Cmds  []AlterCmd
}

func (b *builder) tableDef(c *pg.CreateStmt) *TableDef {
	td := &TableDef{}
	first := significant(b.toks, 0, 1)
	for i, n := b.next(first), 0; i >= 0 && n < 4 && !b.word(i, "table"); i, n = b.next(i), n+1 {
		switch {
		case b.word(i, "temp") || b.word(i, "temporary"):
			td.Clauses = append(td.Clauses, Clause{"TEMPORARY", b.span(i)})
		case b.word(i, "unlogged"):
			td.Clauses = append(td.Clauses, Clause{"UNLOGGED", b.span(i)})
		}
	}
	add := func(name string, present bool, word, second string) {
		if !present {
			return
		}
		for k := b.topLevel(0, word); k >= 0; k = b.topLevel(k+1, word) {
			if second == "" || b.word(b.next(k), second) {
				end := k
				if second != "" {
					end = b.next(k)
				}
				td.Clauses = append(td.Clauses, Clause{name, b.spanOf(k, end)})
				return
			}
		}
		td.Clauses = append(td.Clauses, Clause{name, b.span(first)})
	}
	add("PARTITION BY", c.Partspec != nil, "partition", "by")
	add("PARTITION OF", c.Partbound != nil, "partition", "of")
	add("INHERITS", len(c.InhRelations) > 0 && c.Partbound == nil, "inherits", "")
	add("WITH", len(c.Options) > 0, "with", "")
	add("ON COMMIT", c.Oncommit != pg.OnCommitAction_ONCOMMIT_NOOP && c.Oncommit != pg.OnCommitAction_ON_COMMIT_ACTION_UNDEFINED, "on", "commit")
	add("TABLESPACE", c.Tablespacename != "", "tablespace", "")
	for _, e := range c.TableElts {
		switch {
		case e.GetColumnDef() != nil:
			td.Columns = append(td.Columns, b.column(e.GetColumnDef()))
		case e.GetConstraint() != nil:
			if con := b.constraint(e.GetConstraint()); con.Kind != ConNone {
				td.Constraints = append(td.Constraints, con)
			}
		}
	}
	return td
}

func (b *builder) column(cd *pg.ColumnDef) Column {
	col := Column{Name: strings.ToLower(cd.Colname), Type: b.typeRef(cd.TypeName)}
	if cd.CollClause != nil {
		col.Collate, col.CollateSpan = true, col.Type.Span
		if i := b.tokLoc(cd.CollClause.Location); i >= 0 {
			col.CollateSpan = b.span(i)
		}
	}
	for _, n := range cd.Constraints {
		if c := n.GetConstraint(); c != nil {
			if con := b.constraint(c); con.Kind != ConNone {
				col.Constraints = append(col.Constraints, con)
			}
		}
	}
	return col
}

func (b *builder) typeRef(tn *pg.TypeName) TypeRef {
	if tn == nil {
		return TypeRef{}
	}
	t := TypeRef{Array: len(tn.ArrayBounds) > 0}
	for i, n := range tn.Names {
		s := strings.ToLower(n.GetString_().GetSval())
		if i == len(tn.Names)-1 {
			t.Name = s
		} else {
			t.Schema = s
		}
	}
	for _, m := range tn.Typmods {
		if ac := m.GetAConst(); ac != nil && ac.GetIval() != nil {
			t.Mods = append(t.Mods, int(ac.GetIval().Ival))
		}
	}
	if i := b.tokLoc(tn.Location); i >= 0 {
		t.Span = b.span(i)
	}
	return t
}

func (b *builder) constraint(c *pg.Constraint) Constraint {
	con := Constraint{Kind: constraintKinds[c.Contype], NotValid: c.SkipValidation, UsingIndex: c.Indexname != ""}
	i := b.tokLoc(c.Location)
	if i >= 0 {
		con.Span = b.span(i)
	}
	if con.Kind == ConIdentity {
		con.Identity = b.seqOptions(c.Options)
		b.identityInsert(con.Identity, i)
	}
	return con
}

// identityInsert finds where CACHE 1 goes in GENERATED ... AS IDENTITY
// [( options )], starting from the GENERATED word at token i.
func (b *builder) identityInsert(so *SeqOptions, i int) {
	k := i
	for n := 0; n < 6 && k >= 0 && !b.word(k, "identity"); n++ {
		k = b.next(k)
	}
	if !b.word(k, "identity") {
		return
	}
	so.Like = b.span(k)
	open := b.next(k)
	if !b.punct(open, '(') {
		so.Insert, so.InsertText = b.toks[k].End, " (CACHE 1)"
		return
	}
	if close := b.matching(open); close > 0 {
		if last := b.prev(close); last == open {
			so.Insert, so.InsertText = b.toks[open].End, "CACHE 1"
		} else {
			so.Insert, so.InsertText = b.toks[last].End, " CACHE 1"
		}
	}
}

func (b *builder) seqOptions(opts []*pg.Node) *SeqOptions {
	so := &SeqOptions{Insert: -1}
	for _, o := range opts {
		de := o.GetDefElem()
		if de == nil {
			continue
		}
		switch de.Defname {
		case "cache":
			so.HasCache = true
			so.Cache = defInt(de.Arg)
			if v := b.next(b.tokLoc(de.Location)); v >= 0 {
				so.CacheSpan = b.span(v)
			}
		case "as":
			if tn := de.Arg.GetTypeName(); tn != nil {
				t := b.typeRef(tn)
				so.As = &t
			}
		}
	}
	return so
}

// defInt reads an integer option value; large values arrive as Float.
func defInt(n *pg.Node) int64 {
	switch {
	case n.GetInteger() != nil:
		return int64(n.GetInteger().Ival)
	case n.GetFloat() != nil:
		v, err := strconv.ParseFloat(n.GetFloat().Fval, 64)
		if err == nil {
			return int64(v)
		}
	}
	return 0
}

func (b *builder) sequenceDef(opts []*pg.Node, alter bool) *SequenceDef {
	first := significant(b.toks, 0, 1)
	sd := &SequenceDef{Alter: alter, Words: b.spanOf(first, b.next(first)), Options: b.seqOptions(opts)}
	if last := b.lastSignificant(); last >= 0 {
		sd.Options.Insert, sd.Options.InsertText, sd.Options.Like = b.toks[last].End, " CACHE 1", b.span(first)
	}
	return sd
}

// indexHeader walks CREATE [UNIQUE] INDEX [ASYNC] [CONCURRENTLY] [IF NOT
// EXISTS] [name]: it returns the tokens of INDEX, ASYNC, CONCURRENTLY (-1
// when absent) and the one after the options (the name, or ON), and ok
// false when the statement is not CREATE INDEX.
func (b *builder) indexHeader() (index, async, conc, name int, ok bool) {
	first := significant(b.toks, 0, 1)
	if !b.word(first, "create") {
		return -1, -1, -1, -1, false
	}
	k := b.next(first)
	if b.word(k, "unique") {
		k = b.next(k)
	}
	if !b.word(k, "index") {
		return -1, -1, -1, -1, false
	}
	index, async, conc = k, -1, -1
	if k = b.next(k); b.word(k, "async") {
		async, k = k, b.next(k)
	}
	if b.word(k, "concurrently") {
		conc, k = k, b.next(k)
	}
	if b.word(k, "if") {
		for n := 0; n < 3; n++ {
			k = b.next(k)
		}
	}
	return index, async, conc, k, true
}

func (b *builder) indexDef(s *pg.IndexStmt) *IndexDef {
	ix := &IndexDef{Keys: len(s.IndexParams)}
	index, async, conc, k, ok := b.indexHeader()
	if !ok {
		return ix
	}
	ix.Words, ix.Async = b.spanOf(significant(b.toks, 0, 1), index), async >= 0
	if conc >= 0 {
		ix.Clauses = append(ix.Clauses, Clause{"CONCURRENTLY", b.span(conc)})
	}
	if k >= 0 && !b.word(k, "on") && b.punct(b.next(k), '.') {
		ix.Clauses = append(ix.Clauses, Clause{"QUALIFIED", b.spanOf(k, b.nameEnd(k))})
	}
	r := b.tokLoc(s.Relation.GetLocation())
	if r < 0 {
		return ix
	}
	k = b.next(b.nameEnd(r))
	if b.word(k, "using") {
		m := b.next(k)
		ix.Clauses = append(ix.Clauses, Clause{"USING", b.spanOf(k, m)})
		k = b.next(m)
	}
	if !b.punct(k, '(') {
		return ix
	}
	closing := b.matching(k)
	if closing < 0 {
		return ix
	}
	elems := b.elements(k, closing)
	for i, p := range s.IndexParams {
		ie := p.GetIndexElem()
		if ie == nil || i >= len(elems) || len(elems) != len(s.IndexParams) {
			continue
		}
		lo, hi := elems[i][0], elems[i][1]
		if ie.Expr != nil {
			ix.Clauses = append(ix.Clauses, Clause{"EXPRESSION", b.spanOf(lo, hi)})
		}
		switch ie.Ordering {
		case pg.SortByDir_SORTBY_ASC:
			ix.Clauses = append(ix.Clauses, Clause{"ASC", b.span(b.findWord(lo, hi, "asc"))})
		case pg.SortByDir_SORTBY_DESC:
			ix.Clauses = append(ix.Clauses, Clause{"DESC", b.span(b.findWord(lo, hi, "desc"))})
		}
		if ie.NullsOrdering == pg.SortByNulls_SORTBY_NULLS_FIRST || ie.NullsOrdering == pg.SortByNulls_SORTBY_NULLS_LAST {
			n := b.findWord(lo, hi, "nulls")
			ix.Clauses = append(ix.Clauses, Clause{"NULLS", b.spanOf(n, b.next(n))})
		}
		if len(ie.Opclass) > 0 {
			name := ie.Opclass[len(ie.Opclass)-1].GetString_().GetSval()
			ix.Clauses = append(ix.Clauses, Clause{"OPCLASS", b.span(b.findWord(lo, hi, name))})
		}
		if len(ie.Collation) > 0 {
			ix.Clauses = append(ix.Clauses, Clause{"COLLATE", b.span(b.findWord(lo, hi, "collate"))})
		}
	}
	if s.WhereClause != nil {
		if w := b.topLevel(closing, "where"); w >= 0 {
			ix.Clauses = append(ix.Clauses, Clause{"WHERE", b.span(w)})
		}
	}
	return ix
}

// elements splits the tokens strictly between the parentheses at open and
// closing at their top-level commas.
func (b *builder) elements(open, closing int) [][2]int { return b.split(open+1, closing) }

// split splits the tokens [from, to) at commas outside parentheses,
// returning each part's first and last significant token.
func (b *builder) split(from, to int) [][2]int {
	var out [][2]int
	depth, start := 0, -1
	for k := from; k >= 0 && k < to && k < len(b.toks); k++ {
		t := b.toks[k]
		if t.Kind == TokSpace || t.Kind == TokComment {
			continue
		}
		switch {
		case b.punct(k, '('):
			depth++
		case b.punct(k, ')'):
			depth--
		case b.punct(k, ',') && depth == 0:
			if start >= 0 {
				out = append(out, [2]int{start, b.prev(k)})
			}
			start = -1
			continue
		}
		if start < 0 {
			start = k
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, significant(b.toks, to-1, -1)})
	}
	return out
}

// findWord returns the last token in [lo, hi] that spells w, or lo.
func (b *builder) findWord(lo, hi int, w string) int {
	for k := hi; k >= lo && k >= 0; k-- {
		if (b.toks[k].Kind == TokIdent && strings.EqualFold(b.toks[k].Text(b.text), w)) ||
			(b.toks[k].Kind == TokQuoted && b.toks[k].Text(b.text) == `"`+w+`"`) {
			return k
		}
	}
	return lo
}

func (b *builder) alterDef(a *pg.AlterTableStmt) *AlterDef {
	ad := &AlterDef{Index: a.Objtype == pg.ObjectType_OBJECT_INDEX}
	if rv := a.Relation; rv != nil {
		ad.Table = Table{Schema: rv.Schemaname, Name: rv.Relname}
	}
	first := significant(b.toks, 0, 1)
	kw := b.next(first)
	ad.Words = b.spanOf(first, kw)
	ad.Async = b.word(b.next(kw), "async")
	var segs [][2]int
	if r := b.tokLoc(a.Relation.GetLocation()); r >= 0 {
		segs = b.split(b.next(b.nameEnd(r)), len(b.toks))
	}
	for i, n := range a.Cmds {
		cmd := n.GetAlterTableCmd()
		if cmd == nil {
			continue
		}
		ac := AlterCmd{Kind: alterKinds[cmd.Subtype], Span: b.span(first), Name: cmd.Name}
		if len(segs) == len(a.Cmds) {
			ac.Span = b.spanOf(segs[i][0], segs[i][1])
		}
		switch ac.Kind {
		case AlterAddColumn, AlterColumnType:
			if cd := cmd.Def.GetColumnDef(); cd != nil {
				col := b.column(cd)
				if col.Name == "" {
					col.Name = strings.ToLower(cmd.Name)
				}
				ac.Column = &col
			}
		case AlterAddConstraint, AlterAddIdentity:
			if c := cmd.Def.GetConstraint(); c != nil {
				con := b.constraint(c)
				ac.Constraint = &con
			}
		}
		ad.Cmds = append(ad.Cmds, ac)
	}
	return ad
}

func (b *builder) truncateDef(t *pg.TruncateStmt) *TruncateDef {
	td := &TruncateDef{Tables: len(t.Relations), Restart: t.RestartSeqs, Cascade: t.Behavior == pg.DropBehavior_DROP_CASCADE}
	first := significant(b.toks, 0, 1)
	end := first
	if b.word(b.next(first), "table") {
		end = b.next(first)
	}
	td.Words = b.spanOf(first, end)
	if len(t.Relations) == 1 {
		if rv := t.Relations[0].GetRangeVar(); rv != nil {
			if r := b.tokLoc(rv.Location); r >= 0 && b.next(b.nameEnd(r)) < 0 {
				td.Plain = true
			}
		}
	}
	return td
}

// translate copies the definitions with every offset passed through sp
// and off.
func (t *TableDef) translate(sp func(Span) Span, off func(int) int) *TableDef {
	c := &TableDef{Clauses: translateClauses(t.Clauses, sp)}
	for _, col := range t.Columns {
		c.Columns = append(c.Columns, col.translate(sp, off))
	}
	for _, con := range t.Constraints {
		c.Constraints = append(c.Constraints, con.translate(sp, off))
	}
	return c
}

func (col Column) translate(sp func(Span) Span, off func(int) int) Column {
	c := col
	c.CollateSpan = sp(col.CollateSpan)
	c.Type = col.Type.translate(sp)
	c.Constraints = nil
	for _, con := range col.Constraints {
		c.Constraints = append(c.Constraints, con.translate(sp, off))
	}
	return c
}

func (t TypeRef) translate(sp func(Span) Span) TypeRef {
	t.Span = sp(t.Span)
	return t
}

func (con Constraint) translate(sp func(Span) Span, off func(int) int) Constraint {
	c := con
	c.Span = sp(con.Span)
	c.Identity = con.Identity.translate(sp, off)
	return c
}

func (so *SeqOptions) translate(sp func(Span) Span, off func(int) int) *SeqOptions {
	if so == nil {
		return nil
	}
	c := *so
	c.CacheSpan, c.Like = sp(so.CacheSpan), sp(so.Like)
	if so.Insert >= 0 {
		c.Insert = off(so.Insert)
	}
	if so.As != nil {
		as := so.As.translate(sp)
		c.As = &as
	}
	return &c
}
