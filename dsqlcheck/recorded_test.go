package dsqlcheck_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/dsqllint/dsqllint/dsqlcheck"
	"github.com/dsqllint/dsqllint/internal/pgtest"
)

// recordedFile holds statements and the answers a live Aurora DSQL
// cluster gave them (its "source" says where they were published): the
// setup that makes their tables, and cases of one or two sessions.
const recordedFile = "testdata/dsql-recorded.json"

type recordedRun struct {
	Source string         `json:"source"`
	Setup  []string       `json:"setup"`
	Cases  []recordedCase `json:"cases"`
}

type recordedCase struct {
	File  string `json:"file"`
	Name  string `json:"name"`
	Steps []struct {
		Session int    `json:"session"`
		SQL     string `json:"sql"`
	} `json:"session_steps"`
	Want []recordedAnswer `json:"want"`
}

// recordedAnswer is one step's answer: "ok" with the command tag when
// one was recorded, or "error" with SQLSTATE and message.
type recordedAnswer struct {
	Outcome  string `json:"outcome"`
	Tag      string `json:"command_tag"`
	SQLState string `json:"sqlstate"`
	Message  string `json:"message"`
}

// stepper runs one session's statements on one connection.
type stepper interface {
	step(ctx context.Context, sql string) (tag string, err error)
	close()
}

// wrapped is a connection of the database/sql wrapper; database/sql
// shows no command tags.
type wrapped struct{ conn *sql.Conn }

func (w wrapped) step(ctx context.Context, q string) (string, error) {
	_, err := w.conn.ExecContext(ctx, q)
	return "", err
}
func (w wrapped) close() { w.conn.Close() }

// wired is a pgx connection, through the wire checker or traced.
type wired struct{ conn *pgx.Conn }

func (w wired) step(ctx context.Context, q string) (string, error) {
	tag, err := w.conn.Exec(ctx, q)
	return tag.String(), err
}
func (w wired) close() { w.conn.Close(context.Background()) }

// replayPath is one way of running the cases: its own database, set up
// as the recording's was, and a connection per session.
type replayPath struct {
	name    string
	connect func(ctx context.Context) (stepper, error)
}

func recordedDatabase(t *testing.T, run *recordedRun) string {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Every DSQL transaction runs at REPEATABLE READ: so do these, for
	// the races to lose as they lose there.
	var name string
	if err := db.QueryRow("SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("ALTER DATABASE " + pgx.Identifier{name}.Sanitize() + " SET default_transaction_isolation = 'repeatable read'"); err != nil {
		t.Fatal(err)
	}
	for _, q := range run.Setup {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("setup %q: %v", q, err)
		}
	}
	return dsn
}

// TestRecordedDSQLAnswers replays every recorded case in reject mode,
// through the database/sql wrapper and through the wire checker, each on
// its own database in the recording's order (later cases see what
// earlier ones left), and compares each step's answer with DSQL's: an
// error's SQLSTATE and message, a success, and through the wire its
// command tag. Two-session cases raced on DSQL; their answer is how many
// transactions lost with 40001.
func TestRecordedDSQLAnswers(t *testing.T) {
	b, err := os.ReadFile(recordedFile)
	if err != nil {
		t.Fatal(err)
	}
	var run recordedRun
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatalf("%s: %v", recordedFile, err)
	}
	ctx := context.Background()

	wrapperDSN := recordedDatabase(t, &run)
	wrapperCfg, err := pgx.ParseConfig(wrapperDSN)
	if err != nil {
		t.Fatal(err)
	}
	wrapperDB := sql.OpenDB(dsqlcheck.New(dsqlcheck.WithReject()).WrapConnector(stdlib.GetConnector(*wrapperCfg)))
	defer wrapperDB.Close()
	wireCfg, err := pgx.ParseConfig(recordedDatabase(t, &run))
	if err != nil {
		t.Fatal(err)
	}
	dsqlcheck.New(dsqlcheck.WithReject()).HookPGX(&wireCfg.Config)

	tracerCfg, err := pgx.ParseConfig(recordedDatabase(t, &run))
	if err != nil {
		t.Fatal(err)
	}
	traced := dsqlcheck.New()
	tracerCfg.Tracer = traced.Tracer()
	tracerSteps, tracerReported := 0, 0

	paths := []replayPath{
		{"database/sql wrapper", func(ctx context.Context) (stepper, error) {
			conn, err := wrapperDB.Conn(ctx)
			return wrapped{conn}, err
		}},
		{"wire", func(ctx context.Context) (stepper, error) {
			conn, err := pgx.ConnectConfig(ctx, wireCfg)
			return wired{conn}, err
		}},
	}
	steps, agreed, refusals, refusalsAgreed, cases, casesAgreed := 0, 0, 0, 0, 0, 0
	races, racesAgreed := 0, 0
	known := map[string]string{}
	for _, c := range run.Cases {
		if len(c.Steps) != len(c.Want) {
			t.Fatalf("%s/%s: %d steps, %d answers", c.File, c.Name, len(c.Steps), len(c.Want))
		}
		sessions := map[int]bool{}
		for _, s := range c.Steps {
			sessions[s.Session] = true
		}
		caseOK := true
		for _, p := range paths {
			if len(sessions) > 1 {
				races++
				lost, wantLost, err := replayRace(ctx, p, c)
				if err == nil && lost == wantLost {
					racesAgreed++
				} else {
					caseOK = false
					if why, ok := recordedDifferences[c.Name]; ok && err == nil {
						known[c.Name] = why
						continue
					}
					t.Errorf("%s/%s (%s): %d transactions lost with 40001, DSQL lost %d (%v)", c.File, c.Name, p.name, lost, wantLost, err)
				}
				continue
			}
			got, err := replayCase(ctx, p, c)
			if err != nil {
				t.Fatalf("%s/%s (%s): %v", c.File, c.Name, p.name, err)
			}
			if p.name == "database/sql wrapper" {
				// The tracer cannot refuse, but it must report each
				// statement the checker refused.
				reported, err := traceCase(ctx, tracerCfg, traced, c)
				if err != nil {
					t.Fatalf("%s/%s (tracer): %v", c.File, c.Name, err)
				}
				for i, g := range got {
					// Counted: what the checker refused for the statement
					// itself (not 25P02, the consequence of a refusal
					// before it, which the tracer reported there).
					var refused *dsqlcheck.Error
					if !errors.As(g.err, &refused) || refused.Code == "25P02" {
						continue
					}
					tracerSteps++
					if reported[i] {
						tracerReported++
					} else {
						t.Errorf("%s/%s step %d %q: refused (%v), and the pgx tracer reports nothing", c.File, c.Name, i+1, c.Steps[i].SQL, g.err)
					}
				}
			}
			for i, w := range c.Want {
				steps++
				if w.Outcome == "error" {
					refusals++
				}
				if diff := got[i].differs(w, p.name == "wire"); diff != "" {
					caseOK = false
					if why, ok := recordedDifferences[c.Name]; ok {
						known[c.Name] = why
						continue
					}
					t.Errorf("%s/%s step %d (%s) %q:\n%s", c.File, c.Name, i+1, p.name, c.Steps[i].SQL, diff)
					continue
				}
				agreed++
				if w.Outcome == "error" {
					refusalsAgreed++
				}
			}
		}
		cases++
		if caseOK {
			casesAgreed++
		}
	}
	for name, why := range recordedDifferences {
		if known[name] == "" {
			t.Errorf("%s agrees with DSQL now: take it out of recordedDifferences (%s)", name, why)
		}
	}
	summary := fmt.Sprintf("%d of %d cases agree on both paths (%d differ as listed below); %d of %d step answers on the two paths agree "+
		"(%d of %d errors with DSQL's SQLSTATE and message); %d of %d races lose as many transactions with 40001; "+
		"the pgx tracer reports %d of %d statements the checker refused for what they are.",
		casesAgreed, cases, len(known), agreed, steps, refusalsAgreed, refusals, racesAgreed, races, tracerReported, tracerSteps)
	t.Log(summary)

	var doc strings.Builder
	doc.WriteString("# dsqlcheck on answers recorded on Aurora DSQL\n\n")
	fmt.Fprintf(&doc, "`go test ./dsqlcheck -run TestRecordedDSQLAnswers` replays %s\n", strings.TrimSuffix(run.Source, "."))
	doc.WriteString("(dsqlcheck/testdata/dsql-recorded.json): each case in reject mode on PostgreSQL 16 at REPEATABLE READ, through the\n")
	doc.WriteString("database/sql wrapper and through the wire checker (pgx), each on a database set up as the recording's was,\n")
	doc.WriteString("and compares each step's answer with DSQL's: an error's SQLSTATE and message, a success, and on the wire its command tag.\n")
	doc.WriteString("Cases of two sessions raced on DSQL; they agree when as many transactions lose with 40001.\n\n")
	doc.WriteString(summary + "\n\n")
	doc.WriteString("| case | why dsqlcheck answers otherwise |\n|---|---|\n")
	names := make([]string, 0, len(known))
	for name := range known {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(&doc, "| %s | %s |\n", name, known[name])
	}
	const docFile = "../docs/dsqlcheck-recorded.md"
	if *update {
		if err := os.WriteFile(docFile, []byte(doc.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if old, err := os.ReadFile(docFile); err != nil || string(old) != doc.String() {
		t.Errorf("%s is not this run's (go test ./dsqlcheck -run TestRecordedDSQLAnswers -update); this run:\n%s", docFile, doc.String())
	}
}

// recordedDifferences are the cases where DSQL's answer is one of its
// defects or of its timing, which dsqlcheck does not copy: each is
// named with why.
var recordedDifferences = map[string]string{
	"q_lateral_left_outer_ref":      "a DSQL defect: LEFT JOIN LATERAL selecting an outer column fails with 42804",
	"q_lateral_left_no_outer_where": "a DSQL defect: LEFT JOIN LATERAL selecting an outer column fails with 42804",
	"q_lateral_left_outer_ref_cast": "a DSQL defect: LEFT JOIN LATERAL selecting an outer column fails with 42804",
	"occ_for_update_vs_write":       "PostgreSQL: a row lock released without a write fails no writer that waited for it; DSQL counts the locked row as written, and one of the two fails at COMMIT",
	"occ_for_key_share_vs_delete":   "PostgreSQL: a row lock released without a write fails no writer that waited for it; DSQL counts the locked row as written, and one of the two fails at COMMIT",
	"alter_unique_using_index":      "DSQL's timing: the index CREATE UNIQUE INDEX ASYNC builds is not valid yet when the next statement adopts it; here the build is done",
}

// gotAnswer is what a step got.
type gotAnswer struct {
	tag string
	err error
}

// differs says how got differs from DSQL's answer w ("" when it agrees);
// withTag: the path shows command tags.
func (g gotAnswer) differs(w recordedAnswer, withTag bool) string {
	code, msg, shown := answer(g.err)
	switch {
	case w.Outcome == "error" && (code != w.SQLState || msg != w.Message):
		return fmt.Sprintf("\tDSQL: %s %q\n\tgot:  %s", w.SQLState, w.Message, shown)
	case w.Outcome == "ok" && g.err != nil:
		return fmt.Sprintf("\tDSQL: runs (%s)\n\tgot:  %s", w.Tag, shown)
	case w.Outcome == "ok" && withTag && w.Tag != "" && g.tag != w.Tag:
		return fmt.Sprintf("\tDSQL: tag %q\n\tgot:  tag %q", w.Tag, g.tag)
	}
	return ""
}

// replayCase runs a one-session case on a new connection, closed after
// (which ends a transaction the case left open).
func replayCase(ctx context.Context, p replayPath, c recordedCase) ([]gotAnswer, error) {
	s, err := p.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer s.close()
	var got []gotAnswer
	for _, st := range c.Steps {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		tag, err := s.step(ctx, st.SQL)
		cancel()
		got = append(got, gotAnswer{tag, err})
	}
	return got, nil
}

// traceCase runs a one-session case on a traced connection and says,
// for each step, whether the program heard of it: a finding of the
// tracer, or an error.
func traceCase(ctx context.Context, cfg *pgx.ConnConfig, c *dsqlcheck.Checker, rc recordedCase) ([]bool, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	var reported []bool
	for _, st := range rc.Steps {
		c.Reset()
		_, err := conn.Exec(ctx, st.SQL) // runs on PostgreSQL: the tracer only watches
		// Reported: a finding, or PostgreSQL failing the statement too
		// (sys.wait_for_job misused: there is no sys schema here).
		reported = append(reported, len(c.Findings()) > 0 || err != nil)
	}
	return reported, nil
}

// replayRace runs a case of two sessions, each on its connection, in the
// recorded order; a step that waits for the other session's lock (as
// PostgreSQL makes it wait, and DSQL does not) is left running while the
// next steps go. It returns how many steps failed with 40001 here and on
// DSQL: which session loses, and at which step (DSQL fails the COMMIT,
// PostgreSQL the statement that waited), is the race's and the server's.
func replayRace(ctx context.Context, p replayPath, c recordedCase) (lost, wantLost int, err error) {
	type session struct {
		s       stepper
		work    chan string
		answers chan error
	}
	sessions := map[int]*session{}
	defer func() {
		for _, s := range sessions {
			close(s.work)
			s.s.close()
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	pending := 0
	var errs []error
	collect := func(s *session, wait time.Duration) bool {
		select {
		case err := <-s.answers:
			pending--
			errs = append(errs, err)
			return true
		case <-time.After(wait):
			return false
		}
	}
	for i, st := range c.Steps {
		if c.Want[i].SQLState == "40001" {
			wantLost++
		}
		s := sessions[st.Session]
		if s == nil {
			conn, err := p.connect(ctx)
			if err != nil {
				return 0, wantLost, err
			}
			s = &session{conn, make(chan string, len(c.Steps)), make(chan error, len(c.Steps))}
			sessions[st.Session] = s
			go func() {
				for q := range s.work {
					_, err := s.s.step(ctx, q)
					s.answers <- err
				}
			}()
		}
		s.work <- st.SQL
		pending++
		collect(s, 200*time.Millisecond)
	}
	for pending > 0 {
		progressed := false
		for _, s := range sessions {
			if collect(s, 100*time.Millisecond) {
				progressed = true
			}
		}
		if !progressed && ctx.Err() != nil {
			return 0, wantLost, fmt.Errorf("%d steps still waiting: %w", pending, ctx.Err())
		}
	}
	for _, err := range errs {
		if code, _, _ := answer(err); code == "40001" {
			lost++
		}
	}
	return lost, wantLost, nil
}
