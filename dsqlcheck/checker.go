package dsqlcheck

import (
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// Checker checks executed statements. It is safe for concurrent use.
type Checker struct {
	cfg    *rules.Config
	reject bool
	// maxRows and maxAge are DSQL's per-transaction limits.
	maxRows int64
	maxAge  time.Duration

	cache sync.Map // statement text → *verdict

	mu       sync.Mutex
	findings []Finding
	seen     map[findingKey]bool
	jobs     []job // the ALTER TABLE ASYNC jobs run, as sys.jobs lists them
}

// job is an ALTER TABLE ASYNC the checker ran as DSQL runs it: a job,
// completed or failed.
type job struct {
	id, object, failure string
}

// recordJob records the job ALTER TABLE ASYNC text ran as, failed with
// failure when it is not "".
func (c *Checker) recordJob(text, failure string) string {
	id := hashID(text)
	object := ""
	if m := asyncObject.FindStringSubmatch(text); m != nil {
		object = m[1]
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.jobs {
		if c.jobs[i].id == id {
			c.jobs[i].failure = failure
			return id
		}
	}
	c.jobs = append(c.jobs, job{id, object, failure})
	return id
}

// failJob marks job id failed, as the server said.
func (c *Checker) failJob(id, failure string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.jobs {
		if c.jobs[i].id == id {
			c.jobs[i].failure = failure
		}
	}
}

// pgText is the statement PostgreSQL should run for query: sys.jobs
// joined by the jobs run so far.
func (c *Checker) pgText(v *verdict, query string) string {
	text := v.pgText(query)
	if v.sysJobs == "" || !strings.Contains(text, jobsMark) {
		return text
	}
	c.mu.Lock()
	var rows []string
	for _, j := range c.jobs {
		status, details := "'completed'", "NULL::text"
		if j.failure != "" {
			status, details = "'failed'", sqlString(j.failure)
		}
		rows = append(rows, fmt.Sprintf("(%s, %s, %s, 'VALIDATE_CONSTRAINT'::text, %s)", sqlString(j.id), status, details, sqlString(j.object)))
	}
	c.mu.Unlock()
	if len(rows) == 0 {
		return text
	}
	return strings.ReplaceAll(text, jobsMark, " UNION ALL SELECT * FROM (VALUES "+strings.Join(rows, ", ")+") AS j(job_id, status, details, job_type, object_name)")
}

// Finding is a rule broken by an executed statement.
type Finding struct {
	Rule    string // "DSQL001"
	Message string // the linter's message for that rule
	SQL     string // the statement as executed
	Caller  string // "file.go:123": first frame outside database/sql, pgx and dsqlcheck (and ORMs)

	// where the caller is, for the reports: its file's path, line and
	// package.
	file string
	line int
	pkg  string
}

type findingKey struct{ rule, sql, caller string }

// Error is what a refused statement fails with: DSQL's SQLSTATE and
// message, and the rule that knew.
type Error struct{ Code, Message, Rule string }

func (e *Error) Error() string {
	return fmt.Sprintf("ERROR: %s (SQLSTATE %s) [dsqlcheck %s]", e.Message, e.Code, e.Rule)
}

// SQLState returns the SQLSTATE, as pgconn.PgError's does.
func (e *Error) SQLState() string { return e.Code }

// Option configures a Checker.
type Option func(*Checker)

// WithDSQLVersion checks against the DSQL of that date (YYYY-MM or
// YYYY-MM-DD), as the linter's -dsql-version does; it panics on a
// malformed date, a mistake in the test's own code.
func WithDSQLVersion(v string) Option {
	return func(c *Checker) {
		t, err := rules.ParseVersion(v)
		if err != nil {
			panic("dsqlcheck: " + err.Error())
		}
		c.cfg.Target = t
	}
}

// WithDisable turns rules off by ID.
func WithDisable(ids ...string) Option {
	return func(c *Checker) {
		for _, id := range ids {
			c.cfg.Disabled[strings.ToUpper(strings.TrimSpace(id))] = true
		}
	}
}

// WithReject makes the database/sql wrapper refuse what DSQL refuses.
func WithReject() Option { return func(c *Checker) { c.reject = true } }

// New returns a Checker.
func New(opts ...Option) *Checker {
	cfg := rules.DefaultConfig()
	cfg.Disabled = map[string]bool{}
	for _, id := range goFlowRules {
		cfg.Disabled[id] = true
	}
	c := &Checker{cfg: cfg, maxRows: 3000, maxAge: 300 * time.Second, seen: map[findingKey]bool{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// goFlowRules judge Go code or a whole package's statements, not one
// executed statement.
var goFlowRules = []string{"DSQL000", "DSQL003", "DSQL004", "DSQL005"}

// Findings returns the findings so far, deduplicated by rule, statement
// and caller, in the order first seen.
func (c *Checker) Findings() []Finding {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Finding(nil), c.findings...)
}

// Reset forgets the findings.
func (c *Checker) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.findings, c.seen = nil, map[findingKey]bool{}
}

// TB is the part of testing.TB Verify uses.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
}

// Verify fails the test at its cleanup when statements executed during
// it broke a rule, listing them.
func (c *Checker) Verify(tb TB) {
	tb.Helper()
	c.mu.Lock()
	from := len(c.findings)
	c.mu.Unlock()
	tb.Cleanup(func() {
		c.mu.Lock()
		var fs []Finding
		if from <= len(c.findings) {
			fs = append(fs, c.findings[from:]...)
		}
		c.mu.Unlock()
		if len(fs) == 0 {
			return
		}
		var b strings.Builder
		for _, f := range fs {
			fmt.Fprintf(&b, "\n%s: %s\n\t%s", f.Caller, f.Message, f.SQL)
		}
		tb.Errorf("dsqlcheck: %d statement(s) would fail or misbehave on Aurora DSQL:%s", len(fs), b.String())
	})
}

// verdict is what the rules say of one statement text, cached.
type verdict struct {
	findings []rules.Finding
	refusal  *Error // the first finding DSQL refuses, as DSQL answers it
	class    sqlparse.Class
	commit   bool // COMMIT (or END)
	ddl      bool // holds a DDL statement
	dml      bool
	asyncDDL string // the text without DSQL's ASYNC, when it had one
	sysJobs  string // the text reading sys.jobs from the server's catalog, when it reads it
	// parts are the texts of the statements, when it holds more than one
	parts []string
	// dropColumns are the columns ALTER TABLE ... DROP COLUMN drops, which
	// the server's own catalog tells are keys or not (keys.go).
	dropColumns []sqlparse.Change
}

// check returns the verdict on a statement text.
func (c *Checker) check(text string) *verdict {
	if v, ok := c.cache.Load(text); ok {
		return v.(*verdict)
	}
	v := &verdict{}
	s := sqlparse.Parse(text)
	if len(s.Stmts) > 1 {
		for _, st := range s.Stmts {
			if st.Span.Start < 0 || st.Span.End > len(text) || st.Span.Start >= st.Span.End {
				v.parts = nil // offsets the text cannot take: one statement for the checks
				break
			}
			v.parts = append(v.parts, text[st.Span.Start:st.Span.End])
		}
	}
	if s.Skipped == "" {
		ctx := &rules.Context{Config: c.cfg, Style: s.Style, MaxParam: s.MaxParam, Fences: fencing.NewFences()}
		for _, f := range rules.Check(ctx, s) {
			if f.Rule.ID != "DSQL109" { // its static guess gives way to the rows really modified
				v.findings = append(v.findings, f)
			}
		}
		for _, f := range v.findings {
			if f.Rule.Severity == rules.Error && v.refusal == nil {
				v.refusal = refusal(f)
			}
		}
		for _, st := range s.Stmts {
			switch st.Kind {
			case sqlparse.KindInsert, sqlparse.KindUpdate, sqlparse.KindDelete:
				v.dml = true // (the token models leave Facts.Class unset)
			}
			for _, ch := range st.Changes {
				if ch.Kind == sqlparse.ChangeDropColumn && !ch.Table.Unknown() {
					v.dropColumns = append(v.dropColumns, ch)
				}
			}
			if st.Facts == nil {
				continue
			}
			switch st.Facts.Class {
			case sqlparse.ClassDDL:
				v.ddl = true
			case sqlparse.ClassDML:
				v.dml = true
			}
			if len(s.Stmts) == 1 {
				v.class = st.Facts.Class
				v.commit = st.Tx != nil && st.Tx.Kind == sqlparse.TxCommit
			}
		}
	}
	if v.refusal == nil {
		v.refusal = waitForJobRefusal(text)
	}
	v.asyncDDL = withoutAsync(text)
	if v.asyncDDL == "" && len(s.Stmts) > 1 {
		v.asyncDDL = withoutAsyncIn(text, s)
	}
	if v.asyncDDL == "" {
		v.sysJobs = withSysJobs(text)
	}
	actual, _ := c.cache.LoadOrStore(text, v)
	return actual.(*verdict)
}

// pgText is the statement PostgreSQL should run for query.
func (v *verdict) pgText(query string) string {
	switch {
	case v.asyncDDL != "":
		return v.asyncDDL
	case v.sysJobs != "":
		return v.sysJobs
	}
	return query
}

// answer matches the server's answer a rule message quotes:
// "(0A000 locking clauses other than FOR UPDATE/FOR KEY SHARE are not supported)".
var answer = regexp.MustCompile(`\(([0-9A-Z]{5})(?: ([^()]*(?:\([^()]*\)[^()]*)*))?\)`)

// refusal is the error DSQL answers a finding's statement with.
func refusal(f rules.Finding) *Error {
	msg := strings.TrimPrefix(f.Message, f.Rule.Prefix())
	if m := answer.FindStringSubmatch(msg); m != nil {
		if m[2] != "" {
			return &Error{Code: m[1], Message: m[2], Rule: f.Rule.ID}
		}
		return &Error{Code: m[1], Message: msg, Rule: f.Rule.ID}
	}
	return &Error{Code: "0A000", Message: msg, Rule: f.Rule.ID}
}

// record adds a finding, once per rule, statement and caller.
func (c *Checker) record(rule, message, sql string) {
	f := Finding{Rule: rule, Message: message, SQL: sql}
	f.file, f.line, f.pkg = caller()
	if f.file != "" {
		f.Caller = fmt.Sprintf("%s:%d", filepath.Base(f.file), f.line)
	}
	k := findingKey{rule, sql, f.Caller}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	c.findings = append(c.findings, f)
}

// recordAll records a verdict's findings.
func (c *Checker) recordAll(v *verdict, sql string) {
	for _, f := range v.findings {
		c.record(f.Rule.ID, f.Message, sql)
	}
}

// caller is the first frame outside database/sql, pgx, dsqlcheck and the
// runtime: the program's line that ran the statement, and its package.
func caller() (file string, line int, pkg string) {
	var pcs [32]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		fr, more := frames.Next()
		if !internalFrame(fr.Function) {
			return fr.File, fr.Line, funcPackage(fr.Function)
		}
		if !more {
			return "", 0, ""
		}
	}
}

// funcPackage is the package path of a frame's function name
// ("example.com/app/store.(*Store).Claim" → "example.com/app/store").
func funcPackage(fn string) string {
	slash := strings.LastIndex(fn, "/")
	if dot := strings.Index(fn[slash+1:], "."); dot >= 0 {
		return fn[:slash+1+dot]
	}
	return fn
}

// internalFrames are the packages between a program and its database:
// drivers, query builders and ORMs.
var internalFrames = []string{"database/sql.", "github.com/jackc/pgx/", "github.com/dsqllint/dsqllint/dsqlcheck.", "github.com/dsqllint/dsqllint/runtime/", "runtime.", "sync.",
	"gorm.io/", "entgo.io/", "github.com/uptrace/bun", "github.com/jmoiron/sqlx", "github.com/Masterminds/squirrel",
	"github.com/doug-martin/goqu", "xorm.io/", "github.com/go-pg/", "github.com/lib/pq"}

func internalFrame(fn string) bool {
	for _, p := range internalFrames {
		if strings.HasPrefix(fn, p) {
			return !strings.HasPrefix(fn, "github.com/dsqllint/dsqllint/dsqlcheck_test.")
		}
	}
	return false
}

// message builds a finding's message the way the linter's are built.
func message(id, text string) string {
	r := rules.ByID(id)
	if r == nil {
		return id + ": " + text
	}
	return r.Prefix() + text
}
