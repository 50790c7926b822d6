package sqlparse

import (
	"encoding/json"
	"regexp"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Trigger events, as CREATE TRIGGER names them.
const (
	OnInsert uint8 = 1 << iota
	OnUpdate
	OnDelete
)

// TriggerDef is what a schema keeps of CREATE TRIGGER: a row trigger that
// runs before a write can refuse it, which is what dsqllint looks for.
type TriggerDef struct {
	Name     string // lower-cased
	Function string // the function it executes, lower-cased, without schema
	Before   bool   // BEFORE (or INSTEAD OF), not AFTER
	Row      bool   // FOR EACH ROW
	Events   uint8  // OnInsert | OnUpdate | OnDelete
	// Columns are UPDATE OF's columns: the trigger fires only when one of
	// them is assigned.
	Columns []string
	// When is the WHEN condition as written, "" when there is none.
	When string
}

// FunctionDef is what a schema keeps of CREATE FUNCTION: the name, and for
// a PL/pgSQL trigger function the checks its body makes.
type FunctionDef struct {
	Name   string // lower-cased, without schema
	Checks []TriggerCheck
}

// CheckKind is what a trigger function does to the row it is given.
type CheckKind uint8

const (
	// CheckRefuse: the write fails (RAISE EXCEPTION) or is skipped (RETURN
	// NULL) when Cond holds.
	CheckRefuse CheckKind = iota + 1
	// CheckVersion: the function bumps Column on every write
	// (NEW.version := OLD.version + 1), so that compare-and-swaps of it
	// see every change.
	CheckVersion
)

// TriggerCheck is one check of a trigger function.
type TriggerCheck struct {
	Kind CheckKind
	// Cond is the condition under which the write is refused, as written
	// ("OLD.closed_reason IS NOT NULL"); "" for a refusal that always
	// happens (the trigger's WHEN decides).
	Cond string
	// Old are the columns of the row as it was that Cond reads alone, in
	// conjuncts that do not read the new row: the state the write is
	// refused in. New are the columns of the new row Cond reads: the
	// change it refuses.
	Old, New []string
	// Restore is the predicate a write's WHERE needs to refuse itself in
	// the same state ("closed_reason IS NULL"); "" when Cond has no part
	// about the row as it was.
	Restore string
	// Column is the version column of a CheckVersion.
	Column string
	// Line is the check's line in the CREATE FUNCTION statement, from 1 at
	// its first word.
	Line int
}

// triggerChange models CREATE TRIGGER.
func (b *builder) triggerChange(t *pg.CreateTrigStmt) []Change {
	if t.Relation == nil || len(t.Funcname) == 0 {
		return nil
	}
	def := &TriggerDef{
		Name:     strings.ToLower(t.Trigname),
		Function: strings.ToLower(opName(t.Funcname)),
		Before:   t.Timing&2 != 0 || t.Timing&64 != 0, // TRIGGER_TYPE_BEFORE, TRIGGER_TYPE_INSTEAD
		Row:      t.Row,
	}
	if t.Events&4 != 0 {
		def.Events |= OnInsert
	}
	if t.Events&8 != 0 {
		def.Events |= OnDelete
	}
	if t.Events&16 != 0 {
		def.Events |= OnUpdate
	}
	for _, c := range t.Columns {
		def.Columns = append(def.Columns, strings.ToLower(c.GetString_().GetSval()))
	}
	if t.WhenClause != nil {
		def.When = b.whenText(t)
	}
	return []Change{{Kind: ChangeCreateTrigger, Table: b.table(t.Relation), Trigger: def}}
}

// whenText returns the text of CREATE TRIGGER's WHEN (...) condition.
func (b *builder) whenText(t *pg.CreateTrigStmt) string {
	i := strings.Index(strings.ToLower(b.text), "when")
	for i >= 0 {
		rest := strings.TrimLeft(b.text[i+4:], " \t\r\n")
		if strings.HasPrefix(rest, "(") {
			depth := 0
			for j := 0; j < len(rest); j++ {
				switch rest[j] {
				case '(':
					depth++
				case ')':
					if depth--; depth == 0 {
						return strings.TrimSpace(rest[1:j])
					}
				}
			}
			return ""
		}
		next := strings.Index(strings.ToLower(b.text[i+4:]), "when")
		if next < 0 {
			break
		}
		i += 4 + next
	}
	return ""
}

// functionChange models CREATE FUNCTION: a PL/pgSQL function that
// returns trigger keeps the checks its body makes.
func (b *builder) functionChange(f *pg.CreateFunctionStmt) []Change {
	if f.IsProcedure || len(f.Funcname) == 0 {
		return nil
	}
	def := &FunctionDef{Name: strings.ToLower(opName(f.Funcname))}
	if f.ReturnType != nil && strings.EqualFold(opName(f.ReturnType.Names), "trigger") && language(f.Options) == "plpgsql" {
		body := 0 // the lines from the statement's first word to its body's
		start := 0
		if first := significant(b.toks, 0, 1); first >= 0 {
			start = b.toks[first].Start
		}
		for _, o := range f.Options {
			if d := o.GetDefElem(); d != nil && d.Defname == "as" {
				if at := b.loc(d.ArgLocation); at > start {
					body = strings.Count(b.text[start:at], "\n")
				}
			}
		}
		def.Checks = triggerChecks(b.text)
		for i := range def.Checks {
			def.Checks[i].Line += body
		}
	}
	return []Change{{Kind: ChangeCreateFunction, Function: def}}
}

// triggerChecks reads the checks of a PL/pgSQL trigger function from its
// CREATE FUNCTION text: the conditions it refuses the write under, and
// the versions it bumps.
func triggerChecks(text string) []TriggerCheck {
	js, err := parsePlpgsql(text)
	if err != nil {
		return nil
	}
	var tree []map[string]any
	if json.Unmarshal([]byte(js), &tree) != nil || len(tree) == 0 {
		return nil
	}
	fn, _ := tree[0]["PLpgSQL_function"].(map[string]any)
	action, _ := fn["action"].(map[string]any)
	block, _ := action["PLpgSQL_stmt_block"].(map[string]any)
	var out []TriggerCheck
	walkPlpgsql(block["body"], nil, &out, 0)
	return out
}

// maxPlpgsqlDepth bounds the nesting of IF blocks followed.
const maxPlpgsqlDepth = 16

// walkPlpgsql collects the checks of a statement list, under the
// conditions of the IF branches around it.
func walkPlpgsql(v any, conds []string, out *[]TriggerCheck, depth int) {
	stmts, _ := v.([]any)
	if depth > maxPlpgsqlDepth {
		return
	}
	for _, s := range stmts {
		m, _ := s.(map[string]any)
		for kind, body := range m {
			n, _ := body.(map[string]any)
			line := intOf(n["lineno"])
			switch kind {
			case "PLpgSQL_stmt_if":
				cond := exprOf(n["cond"])
				walkPlpgsql(n["then_body"], append(conds[:len(conds):len(conds)], cond), out, depth+1)
				elsifs, _ := n["elsif_list"].([]any)
				for _, e := range elsifs {
					em, _ := e.(map[string]any)
					ei, _ := em["PLpgSQL_if_elsif"].(map[string]any)
					walkPlpgsql(ei["stmts"], append(conds[:len(conds):len(conds)], exprOf(ei["cond"])), out, depth+1)
				}
				walkPlpgsql(n["else_body"], conds, out, depth+1)
			case "PLpgSQL_stmt_block":
				walkPlpgsql(n["body"], conds, out, depth+1)
			case "PLpgSQL_stmt_raise":
				if level, ok := n["elog_level"].(float64); ok && level < 21 {
					continue // NOTICE, WARNING: the write goes on
				}
				*out = append(*out, refusal(conds, line))
			case "PLpgSQL_stmt_return":
				if strings.EqualFold(strings.TrimSpace(exprOf(n["expr"])), "null") {
					*out = append(*out, refusal(conds, line))
				}
			case "PLpgSQL_stmt_assign":
				if m := versionBump.FindStringSubmatch(exprOf(n["expr"])); m != nil && strings.EqualFold(m[1], m[2]) {
					*out = append(*out, TriggerCheck{Kind: CheckVersion, Column: strings.ToLower(m[1]), Line: line})
				}
			}
		}
	}
}

// versionBump matches NEW.v := OLD.v + 1 (or NEW.v + 1, or = for :=).
var versionBump = regexp.MustCompile(`(?i)^\s*new\s*\.\s*"?(\w+)"?\s*:?=\s*(?:old|new)\s*\.\s*"?(\w+)"?\s*\+\s*1\s*$`)

func exprOf(v any) string {
	m, _ := v.(map[string]any)
	e, _ := m["PLpgSQL_expr"].(map[string]any)
	q, _ := e["query"].(string)
	return q
}

func intOf(v any) int {
	f, _ := v.(float64)
	return int(f)
}

// refusal builds the check of a RAISE or RETURN NULL under conds.
func refusal(conds []string, line int) TriggerCheck {
	c := TriggerCheck{Kind: CheckRefuse, Line: line}
	var oldParts []string
	for _, cond := range conds {
		for _, part := range conjuncts(cond) {
			old, new := rowRefs(part, "old"), rowRefs(part, "new")
			c.New = appendNew(c.New, new...)
			if len(new) == 0 && len(old) > 0 {
				c.Old = appendNew(c.Old, old...)
				oldParts = append(oldParts, part)
			}
		}
	}
	c.Cond = strings.Join(conds, " AND ")
	c.Restore = negate(oldParts)
	return c
}

// RefusalOf is the check a trigger's WHEN condition makes when its
// function refuses every write it is called for.
func RefusalOf(when string) TriggerCheck { return refusal([]string{when}, 0) }

func appendNew(s []string, more ...string) []string {
	for _, x := range more {
		found := false
		for _, y := range s {
			found = found || x == y
		}
		if !found {
			s = append(s, x)
		}
	}
	return s
}

// conjuncts splits a condition at its top-level ANDs.
func conjuncts(cond string) []string {
	toks := Lex(cond)
	var parts []string
	depth, start := 0, 0
	for _, t := range toks {
		switch {
		case t.Kind == TokPunct && cond[t.Start] == '(':
			depth++
		case t.Kind == TokPunct && cond[t.Start] == ')':
			depth--
		case depth == 0 && t.Kind == TokIdent && strings.EqualFold(t.Text(cond), "and"):
			parts = append(parts, strings.TrimSpace(cond[start:t.Start]))
			start = t.End
		}
	}
	return append(parts, strings.TrimSpace(cond[start:]))
}

// rowRefs returns the columns a condition reads of the record rec (OLD or
// NEW), lower-cased.
func rowRefs(cond, rec string) []string {
	toks := Lex(cond)
	var cols []string
	for i := 0; i+2 < len(toks); i++ {
		if toks[i].Kind == TokIdent && strings.EqualFold(toks[i].Text(cond), rec) &&
			toks[i+1].Kind == TokPunct && cond[toks[i+1].Start] == '.' && toks[i+2].Kind == TokIdent {
			cols = appendNew(cols, strings.ToLower(strings.Trim(toks[i+2].Text(cond), `"`)))
		}
	}
	return cols
}

// negate renders the predicate that holds exactly when none of parts'
// conjunction does, with the OLD. qualifier dropped: what a write's WHERE
// says to refuse itself where the trigger refused it.
func negate(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return negateOne(unqualify(parts[0]))
	}
	var s []string
	for _, p := range parts {
		s = append(s, unqualify(p))
	}
	return "NOT (" + strings.Join(s, " AND ") + ")"
}

// negateOne negates one comparison, in its own words where it can.
func negateOne(p string) string {
	upper := strings.ToUpper(p)
	switch {
	case strings.HasSuffix(upper, " IS NOT NULL"):
		return p[:len(p)-len(" IS NOT NULL")] + " IS NULL"
	case strings.HasSuffix(upper, " IS NULL"):
		return p[:len(p)-len(" IS NULL")] + " IS NOT NULL"
	case strings.HasPrefix(upper, "NOT "):
		return strings.TrimSpace(p[4:])
	}
	toks := Lex(p)
	depth := 0
	for _, t := range toks {
		switch {
		case t.Kind == TokPunct && p[t.Start] == '(':
			depth++
		case t.Kind == TokPunct && p[t.Start] == ')':
			depth--
		case depth == 0 && t.Kind == TokOp:
			if neg, ok := negatedOps[t.Text(p)]; ok {
				return p[:t.Start] + neg + p[t.End:]
			}
		case depth == 0 && t.Kind == TokIdent && strings.EqualFold(t.Text(p), "not"):
			if rest := strings.TrimLeft(p[t.End:], " \t\r\n"); len(rest) > 2 && strings.EqualFold(rest[:3], "in ") || strings.EqualFold(rest, "in") {
				return p[:t.Start] + strings.TrimLeft(p[t.End:], " \t\r\n") // NOT IN (...) becomes IN (...)
			}
		case depth == 0 && t.Kind == TokIdent && strings.EqualFold(t.Text(p), "in"):
			return p[:t.Start] + "NOT IN" + p[t.End:]
		}
	}
	return "NOT (" + p + ")"
}

var negatedOps = map[string]string{"=": "<>", "<>": "=", "!=": "=", "<": ">=", ">": "<=", "<=": ">", ">=": "<"}

// unqualify drops OLD. before column names.
func unqualify(p string) string {
	toks := Lex(p)
	var b strings.Builder
	last := 0
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].Kind == TokIdent && strings.EqualFold(toks[i].Text(p), "old") && toks[i+1].Kind == TokPunct && p[toks[i+1].Start] == '.' {
			b.WriteString(p[last:toks[i].Start])
			last = toks[i+1].End
		}
	}
	b.WriteString(p[last:])
	return b.String()
}
