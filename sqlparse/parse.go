package sqlparse

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Limits beyond which a text is skipped rather than parsed, so that hostile
// input costs little and never hangs the analysis.
const (
	MaxBytes      = 512 << 10
	MaxDepth      = 200
	MaxStatements = 10000
)

// Parse parses text into statements. It never panics on any input and never
// returns nil. Texts over the limits are returned with Skipped set.
//
// A Script is a pure function of its text and must not be modified: the
// same text (a query repeated across a repository, a test variant of a
// package) gets the same Script back from a cache.
func Parse(text string) *Script { return scripts.get(text, parse) }

func parse(text string) *Script {
	switch {
	case len(text) > MaxBytes:
		return &Script{Skipped: fmt.Sprintf("text is %d bytes, over the %d-byte limit", len(text), MaxBytes)}
	case strings.IndexByte(text, 0) >= 0:
		return &Script{Skipped: "text contains a NUL byte"}
	case !utf8.ValidString(text):
		return &Script{Skipped: "text is not valid UTF-8"}
	}
	buf := getTokens()
	n, toks := normalizeInto(*buf, text)
	defer putTokens(buf, toks)
	if n.MaxDepth > MaxDepth {
		return &Script{Skipped: fmt.Sprintf("parentheses nest %d deep, over the limit of %d", n.MaxDepth, MaxDepth)}
	}
	if len(n.Stmts) > MaxStatements {
		return &Script{Skipped: fmt.Sprintf("text has %d statements, over the limit of %d", len(n.Stmts), MaxStatements)}
	}
	s := &Script{Text: text, Style: n.Style, MaxParam: n.MaxParam, Stmts: make([]*Statement, 0, len(n.Stmts)), Templates: n.Templates}
	for _, sp := range n.Stmts {
		if sp.Start == 0 && n.toks != nil {
			// The text is the source unchanged and this statement starts
			// it: its tokens are the text's first ones (tokens tile the
			// text and a statement ends at a ';' token or the end), and its
			// offsets need no translation, so the cached model, which is
			// never modified, is shared and only what place sets is copied.
			toks := n.toks[:sort.Search(len(n.toks), func(i int) bool { return n.toks[i].Start >= sp.End })]
			if len(n.Stmts) == 1 {
				// The script cache keeps this text already: its only
				// statement needs no entry of its own, nor a copy.
				s.Stmts = append(s.Stmts, parseTokens(n.Text[:sp.End], toks))
				continue
			}
			st := *statements.get(n.Text[:sp.End], func(text string) *Statement { return parseTokens(text, toks) })
			s.Stmts = append(s.Stmts, &st)
			continue
		}
		rel := statements.get(n.Text[sp.Start:sp.End], parseStatement)
		st := rel.translate(func(off int) int { return n.Map.ToSource(sp.Start + off) })
		for _, l := range st.Locks {
			for _, m := range n.MySQLLocks {
				if l.Span.Start == m.Start {
					l.Strength = LockInShareMode
					l.Span = m
					l.Words = l.Words[:0]
					for _, t := range Lex(text[m.Start:m.End]) {
						if t.Kind == TokIdent {
							l.Words = append(l.Words, Span{m.Start + t.Start, m.Start + t.End})
						}
					}
				}
			}
		}
		s.Stmts = append(s.Stmts, st)
	}
	place(s)
	return s
}

// Both caches are keyed by text and bounded: past cacheMax entries they
// start again empty, which keeps memory flat on huge repositories.
var (
	scripts    = newCache[*Script]()
	statements = newCache[*Statement]() // by normalised statement text
)

const cacheMax = 1 << 14

type cache[V any] struct {
	sync.Mutex
	m map[string]V
}

func newCache[V any]() *cache[V] { return &cache[V]{m: map[string]V{}} }

// get returns the value for key, computing it (outside the lock) if absent.
func (c *cache[V]) get(key string, compute func(string) V) V {
	c.Lock()
	v, ok := c.m[key]
	c.Unlock()
	if ok {
		return v
	}
	v = compute(key)
	c.Lock()
	if len(c.m) >= cacheMax {
		clear(c.m)
	}
	c.m[key] = v
	c.Unlock()
	return v
}

// translate returns a deep copy of a cached statement with every offset
// passed through f.
func (s *Statement) translate(f func(int) int) *Statement {
	sp := func(x Span) Span { return Span{f(x.Start), f(x.End)} }
	c := *s
	c.Span, c.KeywordSpan = sp(s.Span), sp(s.KeywordSpan)
	selects := map[*Select]*Select{}
	c.Locks = make([]*Lock, len(s.Locks))
	for i, l := range s.Locks {
		lc := *l
		lc.Span, lc.WaitSpan = sp(l.Span), sp(l.WaitSpan)
		lc.Words = make([]Span, len(l.Words))
		for i, w := range l.Words {
			lc.Words[i] = sp(w)
		}
		if l.Select != nil {
			sel, ok := selects[l.Select]
			if !ok {
				cp := *l.Select
				sel = &cp
				selects[l.Select] = sel
			}
			lc.Select = sel
		}
		c.Locks[i] = &lc
	}
	if s.Tx != nil {
		tc := *s.Tx
		tc.IsolationSpan = sp(tc.IsolationSpan)
		c.Tx = &tc
	}
	if s.Create != nil {
		ct := *s.Create
		ct.Table.Span = sp(ct.Table.Span)
		c.Create = &ct
	}
	if s.Write != nil {
		w := *s.Write
		w.Table.Span = sp(w.Table.Span)
		w.WhereSpan = sp(w.WhereSpan)
		if len(w.Guards) > 0 {
			w.Guards = slices.Clone(w.Guards)
			for i := range w.Guards {
				w.Guards[i].Table.Span = sp(w.Guards[i].Table.Span)
			}
		}
		c.Write = &w
	}
	if s.Into != nil {
		t := *s.Into
		t.Span = sp(t.Span)
		c.Into = &t
	}
	c.Facts = s.Facts.translate(sp, f)
	c.Changes = translateChanges(s.Changes, sp)
	return &c
}

// fragmentPrefix completes a WHERE fragment (`" WHERE id = $1 FOR SHARE"`,
// appended to a query elsewhere) into a statement that parses.
const fragmentPrefix = "SELECT 1 FROM dsqllint_fragment "

func parseStatement(text string) *Statement {
	buf := getTokens()
	toks := lexInto(*buf, text)
	defer putTokens(buf, toks)
	return parseTokens(text, toks)
}

// parseTokens is parseStatement for text already lexed.
func parseTokens(text string, toks []Token) *Statement {
	first := significant(toks, 0, 1)
	st := &Statement{Span: Span{0, len(text)}}
	if first >= 0 {
		st.KeywordSpan = Span{toks[first].Start, toks[first].End}
		st.Span.Start = toks[first].Start
	}
	if !(tokenModel(st, text, toks, first) || tokenWrite(st, text, toks, first) || tokenLockedSelect(st, text, toks, first)) {
		parseTree(st, text, toks, first)
	}
	if st.Kind == KindSelect {
		st.Filters, st.States = filterNames(text, toks)
	}
	return st
}

// lockTable reports a statement that starts LOCK TABLE, or LOCK with an
// IN ... MODE clause: not a message that starts with the word.
func lockTable(text string, toks []Token, first int) bool {
	if first < 0 || !strings.EqualFold(toks[first].Text(text), "lock") {
		return false
	}
	if next := significant(toks, first+1, 1); next >= 0 && strings.EqualFold(toks[next].Text(text), "table") {
		return true
	}
	return slices.ContainsFunc(toks[first+1:], func(t Token) bool { return t.Kind == TokIdent && strings.EqualFold(t.Text(text), "mode") })
}

// templateIndex returns what the words of a CREATE INDEX template say
// (CREATE INDEX CONCURRENTLY %s ON %s, its verbs carrying the table and
// the columns), nil for another statement or for a hole where the build
// mode goes (CREATE INDEX %s IF NOT EXISTS name ON ...: no ON after it).
func templateIndex(text string, toks []Token) *IndexDef {
	b := &builder{text: text, toks: toks}
	index, async, conc, _, ok := b.indexHeader()
	if !ok {
		return nil
	}
	if next := significant(toks, index+1, 1); async < 0 && conc < 0 && next >= 0 && toks[next].Text(text) == HoleIdent {
		if after := significant(toks, next+1, 1); after < 0 || !strings.EqualFold(toks[after].Text(text), "on") {
			return nil
		}
	}
	ix := &IndexDef{Words: b.spanOf(significant(toks, 0, 1), index), Async: async >= 0}
	if conc >= 0 {
		ix.Clauses = append(ix.Clauses, Clause{"CONCURRENTLY", b.span(conc)})
	}
	return ix
}

// lenient returns text with what breaks PostgreSQL's parse but not the
// statement's meaning blanked out, offsets kept: a piece known only at run
// time that stands for nothing or completes a list (`IN (?%s)` with %s
// = ",?,?"; a whole optional clause), and MySQL's `LIMIT offset, count`
// second operand. ok is false when there is nothing to blank.
func lenient(text string, toks []Token) (string, bool) {
	var blank []Span
	for i, t := range toks {
		switch {
		case t.Kind == TokIdent && text[t.Start:t.End] == HoleIdent:
			blank = append(blank, Span{t.Start, t.End})
		case t.Kind == TokIdent && strings.EqualFold(text[t.Start:t.End], "limit"):
			v := significant(toks, i+1, 1)
			comma := significant(toks, v+1, 1)
			if v < 0 || comma < 0 || toks[comma].Kind != TokPunct || text[toks[comma].Start] != ',' {
				continue
			}
			if end := significant(toks, comma+1, 1); end >= 0 {
				blank = append(blank, Span{toks[comma].Start, toks[end].End})
			}
		}
	}
	if len(blank) == 0 {
		return "", false
	}
	buf := []byte(text)
	for _, sp := range blank {
		for i := sp.Start; i < sp.End; i++ {
			buf[i] = ' '
		}
	}
	return string(buf), true
}

// blankFailingHoles parses text again, each time blanking the hole the
// parser stopped at, while it stops at one: `WHERE acked = false %s ORDER
// BY` holds an optional clause, where `FROM %s` names a table.
func blankFailingHoles(text string, toks []Token, err error) (*pg.ParseResult, error) {
	buf := []byte(text)
	for range 8 {
		at, ok := errorOffset(string(buf), err)
		if !ok {
			return nil, err
		}
		i := slices.IndexFunc(toks, func(t Token) bool {
			return t.Kind == TokIdent && t.Start <= at && at < t.End && string(buf[t.Start:t.End]) == HoleIdent
		})
		if i < 0 {
			return nil, err
		}
		for j := toks[i].Start; j < toks[i].End; j++ {
			buf[j] = ' '
		}
		var res *pg.ParseResult
		if res, err = parseSQL(dsqlSyntax(string(buf), toks)); err == nil {
			return res, nil
		}
	}
	return nil, err
}

// errorOffset returns the byte offset in text of the parser's error
// position.
func errorOffset(text string, err error) (int, bool) {
	pos := parseErrorPos(err) // 1-based, in characters
	if pos <= 0 {
		return 0, false
	}
	chars := 0
	for off := range text {
		if chars++; chars == pos {
			return off, true
		}
	}
	return 0, false
}

// filterNames returns the identifiers after the first WHERE of toks, and
// those of them compared by =, <>, IN or IS.
func filterNames(text string, toks []Token) (names, states []string) {
	where := false
	for i, t := range toks {
		if t.Kind != TokIdent {
			continue
		}
		w := strings.ToLower(strings.Trim(t.Text(text), `"`))
		switch {
		case !where:
			where = w == "where"
			continue
		case isReserved(w):
			continue // AND, IS NULL, IN: the grammar, not a column
		case !slices.Contains(names, w):
			names = append(names, w)
		}
		if n := significant(toks, i+1, 1); n >= 0 && !slices.Contains(states, w) {
			switch nt := toks[n]; {
			case nt.Kind == TokOp && (nt.Text(text) == "=" || nt.Text(text) == "<>" || nt.Text(text) == "!="),
				nt.Kind == TokIdent && (strings.EqualFold(nt.Text(text), "in") || strings.EqualFold(nt.Text(text), "is")):
				states = append(states, w)
			}
		}
	}
	return names, states
}

// parseTree models a statement from pg_query's parse tree.
func parseTree(st *Statement, text string, toks []Token, first int) *Statement {
	res, err := parseSQL(dsqlSyntax(text, toks))
	if err != nil {
		// A piece known only at run time where the parser stops stands
		// for nothing (an optional clause): blank it, and the next.
		res, err = blankFailingHoles(text, toks, err)
	}
	if err != nil {
		// Run-time pieces and MySQL forms that break the parse: try
		// again without them, so the statement is still judged.
		if alt, ok := lenient(text, toks); ok {
			if r2, err2 := parseSQL(dsqlSyntax(alt, toks)); err2 == nil {
				res, err = r2, nil
			}
		}
	}
	offset := 0
	if err != nil && first >= 0 && strings.EqualFold(toks[first].Text(text), "where") {
		if r2, err2 := parseSQL(fragmentPrefix + text); err2 == nil {
			res, err, offset = r2, nil, len(fragmentPrefix)
			st.Fragment = true
		}
	}
	if err != nil || len(res.GetStmts()) != 1 {
		st.Kind = KindUnparsed
		if err != nil {
			st.ParseError = err.Error()
		} else {
			st.ParseError = "not a single statement"
		}
		st.Locks = fragmentLocks(text, toks)
		if st.Locks != nil {
			st.Fragment = true
		}
		st.Facts = tokenFacts(text, toks)
		switch {
		case !st.Facts.Holes:
		case lockTable(text, toks, first):
			// LOCK TABLE %s IN %s MODE: the run-time lock mode breaks the
			// parse, not what the statement is.
			st.Node = "LockStmt"
		default:
			if ix := templateIndex(text, toks); ix != nil {
				st.Node, st.Facts.Class, st.Facts.Index = "IndexStmt", ClassDDL, ix
			}
		}
		return st
	}
	b := &builder{text: text, toks: toks, offset: offset}
	node := res.Stmts[0].GetStmt()
	st.Node = strings.TrimPrefix(fmt.Sprintf("%T", node.GetNode()), "*pg_query.Node_")
	switch {
	case node.GetSelectStmt() != nil:
		st.Kind = KindSelect
	case node.GetInsertStmt() != nil:
		st.Kind = KindInsert
		st.Write = b.upsert(node.GetInsertStmt())
		if rv := node.GetInsertStmt().Relation; rv != nil {
			into := b.table(rv)
			into.Alias = "" // (INSERT INTO t AS x: the name is what matters)
			st.Into = &into
		}
	case node.GetUpdateStmt() != nil:
		st.Kind = KindUpdate
		st.Write = b.update(node.GetUpdateStmt())
	case node.GetDeleteStmt() != nil:
		st.Kind = KindDelete
		st.Write = b.delete(node.GetDeleteStmt())
	case node.GetCreateStmt() != nil:
		st.Kind = KindOther
		st.Create = b.create(node.GetCreateStmt())
	case node.GetTransactionStmt() != nil:
		st.Kind = KindOther
		st.Tx = b.txStmt(node.GetTransactionStmt())
	case node.GetVariableSetStmt() != nil:
		st.Kind = KindOther
		st.Tx = b.setStmt(node.GetVariableSetStmt())
	default:
		st.Kind = KindOther
	}
	if st.Into == nil {
		st.Into = b.cteInto(node)
	}
	st.Locks = b.locks(node)
	if len(st.Locks) > 0 {
		markDeleted(st.Locks, node)
	}
	b.compat(st, node)
	if st.Facts.Class == ClassDDL {
		st.Changes = b.schemaChanges(node)
	}
	if st.Kind == KindSelect && st.Facts.advisory() || st.Node == "LockStmt" {
		st.Reads = b.reads(node)
	}
	return st
}

// reads returns the tables a statement reads, at any depth, once each.
func (b *builder) reads(node *pg.Node) []Table {
	var out []Table
	walkMessages(node.ProtoReflect(), func(m protoMessage) {
		if rv, ok := m.Interface().(*pg.RangeVar); ok {
			t := b.table(rv)
			t.Alias, t.Span = "", Span{}
			if !t.Unknown() && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	})
	return out
}

type builder struct {
	text   string
	toks   []Token
	offset int // length of a prefix added before parsing
}

func (b *builder) loc(l int32) int {
	x := int(l) - b.offset
	if x < 0 {
		return 0
	}
	if x > len(b.text) {
		return len(b.text)
	}
	return x
}

// cteInto returns the table the first INSERT in node's WITH adds rows to
// (WITH a AS (INSERT INTO runtime ... RETURNING ...) SELECT ...): the rows
// are the transaction's own as much as a plain INSERT's.
func (b *builder) cteInto(node *pg.Node) *Table {
	var with *pg.WithClause
	switch {
	case node.GetSelectStmt() != nil:
		with = node.GetSelectStmt().GetWithClause()
	case node.GetInsertStmt() != nil:
		with = node.GetInsertStmt().GetWithClause()
	case node.GetUpdateStmt() != nil:
		with = node.GetUpdateStmt().GetWithClause()
	case node.GetDeleteStmt() != nil:
		with = node.GetDeleteStmt().GetWithClause()
	}
	for _, cte := range with.GetCtes() {
		if ins := cte.GetCommonTableExpr().GetCtequery().GetInsertStmt(); ins != nil && ins.Relation != nil {
			into := b.table(ins.Relation)
			into.Alias = ""
			return &into
		}
	}
	return nil
}

func (b *builder) table(rv *pg.RangeVar) Table {
	if rv == nil {
		return Table{}
	}
	t := Table{Schema: strings.ToLower(rv.Schemaname), Name: strings.ToLower(rv.Relname)}
	if rv.Alias != nil {
		t.Alias = strings.ToLower(rv.Alias.Aliasname)
	}
	start := b.loc(rv.Location)
	t.Span = Span{start, start + len(rv.Relname)}
	if t.Span.End > len(b.text) {
		t.Span.End = len(b.text)
	}
	t.Name = schemaHole(t.Schema, t.Name)
	return t
}

// schemaHole returns the table name a run-time prefix is glued to
// (`%sworkflow_status`, the schema and its dot): the name is known.
func schemaHole(schema, name string) string {
	if schema == "" && len(name) > len(HoleIdent) && strings.HasPrefix(name, HoleIdent) && !containsHole(name[len(HoleIdent):]) {
		return name[len(HoleIdent):]
	}
	return name
}

func (b *builder) update(u *pg.UpdateStmt) *Write {
	w := &Write{Kind: KindUpdate, Table: b.table(u.Relation)}
	w.Sets = assigns(u.TargetList, w.Table, false)
	b.where(w, u.WhereClause, 0)
	return w
}

func (b *builder) create(c *pg.CreateStmt) *CreateTable {
	ct := &CreateTable{Table: b.table(c.Relation)}
	for _, e := range c.TableElts {
		if cd := e.GetColumnDef(); cd != nil {
			ct.Columns = append(ct.Columns, strings.ToLower(cd.Colname))
		}
	}
	return ct
}

func (b *builder) delete(d *pg.DeleteStmt) *Write {
	w := &Write{Kind: KindDelete, Table: b.table(d.Relation)}
	b.where(w, d.WhereClause, 0)
	return w
}

// upsert models INSERT ... ON CONFLICT DO UPDATE as a write of the
// conflicting row; other INSERTs write no existing row and yield nil.
func (b *builder) upsert(ins *pg.InsertStmt) *Write {
	oc := ins.OnConflictClause
	if oc == nil || oc.Action != pg.OnConflictAction_ONCONFLICT_UPDATE {
		return nil
	}
	w := &Write{Kind: KindInsert, Table: b.table(ins.Relation)}
	w.Sets = assigns(oc.TargetList, w.Table, true)
	if oc.Infer != nil {
		for _, e := range oc.Infer.IndexElems {
			if ie := e.GetIndexElem(); ie != nil && ie.Name != "" {
				w.ConflictKey = append(w.ConflictKey, strings.ToLower(ie.Name))
			}
		}
	}
	b.where(w, oc.WhereClause, b.locateDoUpdate())
	return w
}

func (b *builder) where(w *Write, clause *pg.Node, from int) {
	if clause == nil {
		return
	}
	w.HasWhere = true
	w.Where = conds(clause, w.Table, w.Kind == KindInsert)
	w.ReadsOthers = !w.Table.Unknown() && guardRereads(clause, w.Table)
	w.Guards = b.guards(clause, w.Table)
	w.WhereSpan = b.keywordAt(from, "where")
	if w.WhereSpan == (Span{}) {
		w.WhereSpan = Span{b.loc(locationOf(clause)), b.loc(locationOf(clause))}
	}
}

// keywordAt finds the first top-level (parenthesis depth 0) keyword at or
// after offset from.
func (b *builder) keywordAt(from int, word string) Span {
	depth := 0
	for _, t := range b.toks {
		if t.Kind == TokPunct {
			switch b.text[t.Start] {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		if t.Start >= from && depth == 0 && t.Kind == TokIdent && strings.EqualFold(t.Text(b.text), word) {
			return Span{t.Start, t.End}
		}
	}
	return Span{}
}

func (b *builder) locateDoUpdate() int {
	for i, t := range b.toks {
		if t.Kind == TokIdent && strings.EqualFold(t.Text(b.text), "do") {
			if end, ok := matchWords(b.text, b.toks, i, "do", "update"); ok {
				return end
			}
		}
	}
	return 0
}

func locationOf(n *pg.Node) int32 {
	switch {
	case n.GetAExpr() != nil:
		return n.GetAExpr().Location
	case n.GetBoolExpr() != nil:
		return n.GetBoolExpr().Location
	case n.GetNullTest() != nil:
		return n.GetNullTest().Location
	case n.GetSubLink() != nil:
		return n.GetSubLink().Location
	}
	return 0
}

func (b *builder) locks(root *pg.Node) []*Lock {
	type found struct {
		sel    *Select
		clause *pg.LockingClause
		order  int
		// void: the clause locks nothing (PostgreSQL leaves the rows of
		// a WITH query unlocked); its words are still paired, so that the
		// next clause gets its own.
		void bool
	}
	// Most statements lock nothing: find the clauses' words first and walk
	// the tree (the costly part) only when there are some.
	spans := lockTokens(b.text, b.toks)
	if len(spans) == 0 {
		return nil
	}
	var all []found
	var ctes map[string]*pg.Node // the statement's WITH queries, made when a lock is met
	walkSelects(root, func(s *pg.SelectStmt) {
		if len(s.LockingClause) == 0 {
			return
		}
		if ctes == nil {
			ctes = withQueries(root.ProtoReflect())
		}
		sel := b.selectInfo(s)
		order := len(b.text)
		if len(sel.Tables) > 0 {
			order = sel.Tables[0].Span.Start
		}
		for _, lc := range s.LockingClause {
			if c := lc.GetLockingClause(); c != nil {
				all = append(all, found{sel, c, order, readsOnlyCTEs(s, ctes)})
			}
		}
	})
	if len(all) == 0 {
		return nil
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].order < all[j].order })
	used := make([]bool, len(spans))
	locks := make([]*Lock, 0, len(all))
	for _, f := range all {
		l := &Lock{Strength: strengthOf(f.clause.Strength), Select: f.sel}
		switch f.clause.WaitPolicy {
		case pg.LockWaitPolicy_LockWaitSkip:
			l.Wait = WaitSkipLocked
		case pg.LockWaitPolicy_LockWaitError:
			l.Wait = WaitNoWait
		}
		for _, r := range f.clause.LockedRels {
			if rv := r.GetRangeVar(); rv != nil {
				l.Of = append(l.Of, strings.ToLower(rv.Relname))
			}
		}
		// Pair with the first unused clause of the same strength in the text.
		l.Span = Span{0, 0}
		for i, s := range spans {
			if !used[i] && s.Strength == l.Strength {
				used[i] = true
				l.Span, l.WaitSpan, l.Words = s.Span, s.WaitSpan, s.Words
				break
			}
		}
		if f.void && (l.Strength == ForUpdate || l.Strength == ForKeyShare) {
			continue // (DSQL rejects the other strengths whatever they lock)
		}
		f.sel.Locks = append(f.sel.Locks, l)
		locks = append(locks, l)
	}
	sort.SliceStable(locks, func(i, j int) bool { return locks[i].Span.Start < locks[j].Span.Start })
	return locks
}

// withQueries are the queries the WITH clauses of a statement, at any
// depth, name.
func withQueries(m protoMessage) map[string]*pg.Node {
	out := map[string]*pg.Node{}
	walkMessages(m, func(m protoMessage) {
		if c, ok := m.Interface().(*pg.CommonTableExpr); ok {
			out[strings.ToLower(c.Ctename)] = c.Ctequery
		}
	})
	return out
}

// readsOnlyCTEs reports a SELECT whose every FROM item is a WITH query:
// a locking clause there locks no row, as PostgreSQL applies it to the
// tables of its FROM and not to WITH queries (lock inside the WITH
// query instead).
func readsOnlyCTEs(s *pg.SelectStmt, ctes map[string]*pg.Node) bool {
	if len(s.FromClause) == 0 || len(ctes) == 0 {
		return false
	}
	var only func(n *pg.Node) bool
	only = func(n *pg.Node) bool {
		switch {
		case n.GetRangeVar() != nil:
			rv := n.GetRangeVar()
			_, isCTE := ctes[strings.ToLower(rv.Relname)]
			return rv.Schemaname == "" && isCTE
		case n.GetJoinExpr() != nil:
			return only(n.GetJoinExpr().Larg) && only(n.GetJoinExpr().Rarg)
		}
		return false // a subquery or a function: its rows may be locked
	}
	for _, f := range s.FromClause {
		if !only(f) {
			return false
		}
	}
	return true
}

func strengthOf(s pg.LockClauseStrength) Strength {
	switch s {
	case pg.LockClauseStrength_LCS_FORKEYSHARE:
		return ForKeyShare
	case pg.LockClauseStrength_LCS_FORSHARE:
		return ForShare
	case pg.LockClauseStrength_LCS_FORNOKEYUPDATE:
		return ForNoKeyUpdate
	}
	return ForUpdate
}

func (b *builder) selectInfo(s *pg.SelectStmt) *Select {
	sel := &Select{HasFrom: len(s.FromClause) > 0, Joins: len(s.FromClause) > 1}
	var visit func(n *pg.Node)
	visit = func(n *pg.Node) {
		switch {
		case n.GetRangeVar() != nil:
			sel.Tables = append(sel.Tables, b.table(n.GetRangeVar()))
		case n.GetJoinExpr() != nil:
			sel.Joins = true
			visit(n.GetJoinExpr().Larg)
			visit(n.GetJoinExpr().Rarg)
		}
	}
	for _, f := range s.FromClause {
		visit(f)
	}
	var target Table
	if len(sel.Tables) == 1 {
		target = sel.Tables[0]
	}
	for _, t := range s.TargetList {
		if rt := t.GetResTarget(); rt != nil && rt.Val.GetColumnRef() != nil {
			fields := rt.Val.GetColumnRef().Fields
			switch last := fields[len(fields)-1]; {
			case last.GetAStar() != nil:
				sel.Columns = append(sel.Columns, "*")
			case last.GetString_() != nil:
				sel.Columns = append(sel.Columns, last.GetString_().Sval)
			}
		}
	}
	if s.WhereClause != nil {
		sel.Where = conds(s.WhereClause, target, false)
	}
	return sel
}

// walkSelects calls fn for every SELECT in the tree: the statement itself,
// CTEs, subqueries in any clause, and the arms of UNION/INTERSECT/EXCEPT.
func walkSelects(root *pg.Node, fn func(*pg.SelectStmt)) {
	walkMessages(root.ProtoReflect(), func(m protoMessage) {
		if s, ok := m.Interface().(*pg.SelectStmt); ok {
			fn(s)
		}
	})
}

type lockSpan struct {
	Strength       Strength
	Span, WaitSpan Span
	Words          []Span
}

// lockTokens finds the locking clauses in the token stream in source order:
// FOR followed by UPDATE, SHARE, NO KEY UPDATE or KEY SHARE, in any case and
// across whitespace and comments, and an optional trailing NOWAIT or
// SKIP LOCKED (after an OF list). String and comment tokens never match.
func lockTokens(text string, toks []Token) []lockSpan {
	var out []lockSpan
	word := func(i int, w string) bool {
		return i >= 0 && toks[i].Kind == TokIdent && strings.EqualFold(toks[i].Text(text), w)
	}
	for i := range toks {
		if !word(i, "for") {
			continue
		}
		j := significant(toks, i+1, 1)
		var s Strength
		var end int
		switch {
		case word(j, "update"):
			s, end = ForUpdate, toks[j].End
		case word(j, "share"):
			s, end = ForShare, toks[j].End
		case word(j, "no"):
			if e, ok := matchWords(text, toks, j, "no", "key", "update"); ok {
				s, end = ForNoKeyUpdate, e
			}
		case word(j, "key"):
			if e, ok := matchWords(text, toks, j, "key", "share"); ok {
				s, end = ForKeyShare, e
			}
		}
		if s == 0 {
			continue
		}
		ls := lockSpan{Strength: s, Span: Span{toks[i].Start, end}}
		for k := i; k >= 0 && toks[k].Start < end; k = significant(toks, k+1, 1) {
			ls.Words = append(ls.Words, Span{toks[k].Start, toks[k].End})
		}
		// Skip an OF list to reach a wait policy.
		k := significant(toks, indexAfter(toks, end), 1)
		if word(k, "of") {
			for k = significant(toks, k+1, 1); k >= 0; k = significant(toks, k+1, 1) {
				kind := toks[k].Kind
				if kind != TokIdent && kind != TokQuoted && !(kind == TokPunct && (text[toks[k].Start] == ',' || text[toks[k].Start] == '.')) {
					break
				}
				if word(k, "nowait") || word(k, "skip") {
					break
				}
			}
		}
		switch {
		case word(k, "nowait"):
			ls.WaitSpan = Span{toks[k].Start, toks[k].End}
		case word(k, "skip"):
			if e, ok := matchWords(text, toks, k, "skip", "locked"); ok {
				ls.WaitSpan = Span{toks[k].Start, e}
			}
		}
		out = append(out, ls)
	}
	return out
}

func indexAfter(toks []Token, end int) int {
	return sort.Search(len(toks), func(i int) bool { return toks[i].Start >= end })
}

// fragmentLocks recognises a text that is nothing but locking clauses
// (`FOR SHARE`, `FOR NO KEY UPDATE SKIP LOCKED`, `LOCK IN SHARE MODE`),
// as code appends to a query built elsewhere.
func fragmentLocks(text string, toks []Token) []*Lock {
	spans := lockTokens(text, toks)
	if len(spans) == 0 {
		return nil
	}
	covered := func(off int) bool {
		for _, s := range spans {
			end := s.Span.End
			if s.WaitSpan.End > end {
				end = s.WaitSpan.End
			}
			if off >= s.Span.Start && off < end {
				return true
			}
		}
		return false
	}
	for _, t := range toks {
		if t.Kind == TokSpace || t.Kind == TokComment || covered(t.Start) {
			continue
		}
		if t.Kind == TokPunct && text[t.Start] == ';' {
			continue
		}
		return nil
	}
	sel := &Select{}
	locks := make([]*Lock, len(spans))
	for i, s := range spans {
		l := &Lock{Strength: s.Strength, Span: s.Span, WaitSpan: s.WaitSpan, Words: s.Words, Select: sel}
		if s.WaitSpan != (Span{}) {
			l.Wait = WaitNoWait
			if strings.EqualFold(text[s.WaitSpan.Start:s.WaitSpan.Start+4], "skip") {
				l.Wait = WaitSkipLocked
			}
		}
		sel.Locks = append(sel.Locks, l)
		locks[i] = l
	}
	return locks
}

// ReadOf returns the one table a SELECT reads and the columns its WHERE
// pins by a parameter (keys) and by a constant (consts: the singleton row
// of WHERE name = 'compact_rev_key', or a filter such as role = 'admin'):
// what a guard over rows read in a SERIALIZABLE transaction checks. It
// parses the text again, for the few reads that need it (the token model
// keeps no table of a read).
func ReadOf(text string) (table string, keys, consts []string, ok bool) {
	if len(text) > MaxBytes || !utf8.ValidString(text) || strings.IndexByte(text, 0) >= 0 {
		return "", nil, nil, false
	}
	n := Normalize(text)
	if n.MaxDepth > MaxDepth || len(n.Stmts) != 1 {
		return "", nil, nil, false
	}
	res, err := parseSQL(n.Text)
	if err != nil || len(res.GetStmts()) != 1 {
		return "", nil, nil, false
	}
	sel := res.Stmts[0].GetStmt().GetSelectStmt()
	if sel == nil || len(sel.FromClause) != 1 || sel.FromClause[0].GetRangeVar() == nil {
		return "", nil, nil, false
	}
	b := &builder{text: n.Text, toks: Lex(n.Text)}
	t := b.table(sel.FromClause[0].GetRangeVar())
	if t.Unknown() {
		return "", nil, nil, false
	}
	if sel.WhereClause != nil {
		for _, c := range conds(sel.WhereClause, t, false) {
			switch {
			case c.Op != OpEq || c.Value != ValueCaller || c.Column == "" || c.InSubquery:
			case strings.HasPrefix(c.Arg, "$"):
				keys = append(keys, c.Column)
			default:
				consts = append(consts, c.Column)
			}
		}
	}
	return t.Name, keys, consts, true
}
