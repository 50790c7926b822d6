package rules

import (
	"sort"
	"strings"
	"sync"

	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// Severity is error when DSQL rejects the statement, warning when DSQL
// accepts it but the program loses a guarantee it relied on.
type Severity uint8

const (
	Warning Severity = iota
	Error
)

func (s Severity) String() string {
	if s == Error {
		return "error"
	}
	return "warning"
}

// Rule is one check of the catalogue.
type Rule struct {
	ID       string // stable: DSQL001
	Name     string // share-lock
	Severity Severity
	Summary  string // one line, for rule lists and SARIF
	check    func(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix))
}

// DocURL is the rule's documentation page.
func (r *Rule) DocURL() string {
	return "https://github.com/dsqllint/dsqllint/blob/main/docs/rules/" + r.ID + ".md"
}

// Prefix is how every message of the rule starts: "DSQL001 share-lock: ".
func (r *Rule) Prefix() string { return r.ID + " " + r.Name + ": " }

// Finding is one problem in a text, located by source byte offsets.
type Finding struct {
	Rule    *Rule
	Span    sqlparse.Span
	Message string // starts with Rule.Prefix()
	Fix     *Fix   // nil when the rule has no automatic fix
}

// Fix is a rule's edit of the SQL text: one alternative, applied whole.
type Fix struct {
	Message string // what the fix changes, e.g. "Replace FOR SHARE with FOR UPDATE"
	Edits   []Edit
}

// Edit replaces the source bytes of Span with New.
type Edit struct {
	Span sqlparse.Span
	New  string
}

var all []*Rule

func register(r *Rule) *Rule {
	all = append(all, r)
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return r
}

// All returns every rule, ordered by ID.
func All() []*Rule { return append([]*Rule(nil), all...) }

// ByID returns the rule with the given ID, or nil.
func ByID(id string) *Rule {
	for _, r := range all {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Context is what a rule may know beyond the statement itself.
type Context struct {
	// Text is the source text the statements were parsed from.
	Text   string
	Config *Config
	// Style and MaxParam are the text's placeholder style, for suggestions.
	Style    sqlparse.Style
	MaxParam int
	// Fences is what the package's other statements and schema tell.
	Fences *fencing.Fences
	// Tx tells what runs before the statement starting at source offset
	// at in its transaction (or, as far as a package shows, its function
	// and the helpers it calls first). Nil when nothing is known.
	Tx func(at int) TxView
	// Quiet, when set, hears why DSQL003 leaves a write at span alone
	// (-why).
	Quiet func(span sqlparse.Span, why string)
	// Only, when set, is the one rule Check runs (DSQL003 judged again
	// with what the whole module tells about fencing).
	Only *Rule
	// Later, when set, is a rule Check leaves out: one judged again, whole,
	// later (DSQL003 by the dsqllint command's module stage).
	Later *Rule
	// Panics collects the rules that panicked during Check.
	Panics []Panic
	// file is the whole file as one section of its runner, where the
	// runner records a version for the file (pop): set by Check.
	file *sqlparse.Section
}

// Check runs every enabled rule over the statements of a script.
//
// A rule that panics (a bug of ours on some input) loses its findings for
// that statement, and the panic is recorded in ctx.Panics; the other rules
// still run.
func Check(ctx *Context, s *sqlparse.Script) []Finding {
	c := checks.Get().(*checkState)
	c.script = s
	ctx.Text = s.Text
	ctx.file = nil
	if ctx.Config.Runner == RunnerPop {
		ctx.file = sqlparse.WholeSection(s, RunnerPop, ctx.Config.RunnerDown)
	}
	for _, st := range s.Stmts {
		for _, r := range all {
			if r.check != nil && ctx.Config.Enabled(r.ID) && (ctx.Only == nil || ctx.Only == r) && ctx.Later != r {
				c.rule = r
				if n := len(c.out); !checkOne(ctx, r, st, c.report) {
					c.out = c.out[:n] // drop what the rule reported before it panicked
				}
			}
		}
	}
	out := c.out
	*c = checkState{report: c.report}
	checks.Put(c)
	return out
}

// checkState is the state of one Check call. Its report function is made once
// per pooled state: a closure per call was most of the rules' allocations.
type checkState struct {
	out    []Finding
	rule   *Rule
	script *sqlparse.Script
	report func(sqlparse.Span, string, *Fix)
}

var checks = sync.Pool{New: func() any {
	c := &checkState{}
	c.report = c.add
	return c
}}

func (c *checkState) add(sp sqlparse.Span, msg string, fix *Fix) {
	if fix != nil && len(c.script.Templates) > 0 {
		for _, e := range fix.Edits {
			if c.script.EditsTemplate(e.Span) {
				fix = nil // the template's syntax is not ours to rewrite
				break
			}
		}
	}
	if strings.Contains(msg, sqlparse.HoleIdent) {
		// A name Go assembles at run time (tableName + "_pkey").
		msg = strings.ReplaceAll(msg, sqlparse.HoleIdent, "<run-time>")
	}
	c.out = append(c.out, Finding{Rule: c.rule, Span: sp, Message: c.rule.Prefix() + msg, Fix: fix})
}

// Panic records a rule that panicked on a statement.
type Panic struct {
	Rule  *Rule
	Span  sqlparse.Span // the statement
	Value any
}

// checkOne runs one rule on one statement and reports false if it panicked.
func checkOne(ctx *Context, r *Rule, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			ok = false
			ctx.Panics = append(ctx.Panics, Panic{Rule: r, Span: st.Span, Value: v})
		}
	}()
	r.check(ctx, st, report)
	return true
}
