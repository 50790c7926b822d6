package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/fencing"
)

// Config is the rule configuration, set from the analyzer's flags.
type Config struct {
	// Target is the DSQL release the code must run on; rules for features
	// DSQL added later are silent for newer targets.
	Target Version
	// Column name patterns; "*_version" matches any suffix.
	FenceColumns  Columns // version / epoch columns compared in a CAS
	OwnerColumns  Columns // owner columns compared with the caller's identity
	StateColumns  Columns // state, lease and schedule columns
	ExpiryColumns Columns // lease expiry columns, guards when compared with <
	// Disabled rule IDs.
	Disabled map[string]bool
	// MigrationTx is how the migration runner applies a .sql file (the
	// -migration-tx flag): each statement on its own, or the whole file (or
	// each goose/dbmate section) in one transaction.
	MigrationTx TxMode
	// SQLFile is set on the copy of the configuration used for a .sql file
	// (ForSQLFile): its statements run as the migration runner applies
	// them, where a Go string's run as one Exec call, an implicit
	// transaction.
	SQLFile bool
	// Runner is the migration tool the module applies a .sql file with
	// when the file carries no annotation of its own (FileRunner), set on
	// that file's copy of the configuration (ForRunner).
	Runner string
	// RunnerDown marks a down migration's file of Runner.
	RunnerDown bool
	// Known is what the module tells of its tables beyond its statements.
	fencing.Known
}

// ForSQLFile returns a copy of c for checking a .sql file.
func (c *Config) ForSQLFile() *Config {
	x := *c
	x.SQLFile = true
	return &x
}

// ForRunner returns a copy of c for a .sql file the migration tool runner
// applies whole, in one transaction.
func (c *Config) ForRunner(runner string, down bool) *Config {
	x := *c
	x.SQLFile, x.Runner, x.RunnerDown, x.MigrationTx = true, runner, down, TxFile
	return &x
}

// The migration tools whose runs DSQL104 infers, and what each does with a
// file named as it names them.
const (
	// RunnerGolangMigrate: golang-migrate sends a file (NNN_title.up.sql)
	// as one Exec, one implicit transaction.
	RunnerGolangMigrate = "golang-migrate"
	// RunnerPop: pop (and Ory's popx) runs a file (NNN_name.up.sql,
	// NNN_name.postgres.up.sql) in one transaction, with its version row.
	RunnerPop = "pop"
	// RunnerPopAutocommit: pop runs an .autocommit. file (Ory's indices
	// built one by one) without a transaction, but as one Exec of the
	// whole text: with no arguments the drivers send it as one
	// simple-protocol query, one implicit transaction.
	RunnerPopAutocommit = "pop-autocommit"
	// RunnerExec: the package's own Go code runs the file, embedded with
	// //go:embed, as one string in one Exec call: one implicit
	// transaction.
	RunnerExec = "exec"
)

// FileRunner returns the tool, of those the module requires (its go.mod
// module paths), that applies a .sql file of this name whole: a name the
// tool gives its migrations, and no annotation of another tool in the
// text. "" when none.
func FileRunner(requires []string, name, text string) string {
	if strings.Contains(text, "+goose") || strings.Contains(text, "migrate:") || strings.Contains(text, "+migrate") {
		return ""
	}
	m, ok := catalog.ParseMigrationName(name)
	if !ok {
		return ""
	}
	for _, r := range requires {
		switch {
		case strings.HasPrefix(r, "github.com/golang-migrate/migrate") && m.DB == "" && !m.Autocommit:
			return RunnerGolangMigrate
		case (strings.HasPrefix(r, "github.com/gobuffalo/pop") || strings.HasPrefix(r, "github.com/ory/pop") || r == "github.com/ory/x") &&
			(m.DB == "" || m.DB == "postgres"):
			if m.Autocommit {
				return RunnerPopAutocommit
			}
			return RunnerPop
		}
	}
	return ""
}

// TxMode is how a migration runner applies a .sql file.
type TxMode uint8

const (
	// TxAuto: a section a migration tool marks (goose, dbmate,
	// sql-migrate) runs as that tool runs it, in one transaction unless
	// marked otherwise; any other statement runs on its own.
	TxAuto TxMode = iota
	// TxStatement: each statement runs on its own (psql, dbmate and goose
	// files marked to run without a transaction, sqlc query files).
	TxStatement
	// TxFile: the file runs in one transaction (golang-migrate, goose,
	// Flyway, dbmate by default); goose and dbmate sections separately.
	TxFile
)

func (m TxMode) String() string {
	switch m {
	case TxFile:
		return "file"
	case TxStatement:
		return "statement"
	}
	return "auto"
}

// Set implements flag.Value.
func (m *TxMode) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		*m = TxAuto
	case "statement":
		*m = TxStatement
	case "file":
		*m = TxFile
	default:
		return fmt.Errorf("invalid -migration-tx %q: want auto, statement or file", s)
	}
	return nil
}

// DSQL feature dates the compatibility rules switch on (see
// docs/rules and the research notes they cite).
var (
	sequencesSince    = MustVersion("2026-02-13") // CREATE SEQUENCE, identity columns
	dropColumnSince   = MustVersion("2026-08-03") // DROP COLUMN, ADD CONSTRAINT ... NOT VALID, VALIDATE
	exprIndexSince    = MustVersion("2026-08-13") // indexes on expressions
	numericSince      = MustVersion("2026-08-25") // numeric precision above 38 (up to 1000)
	foreignKeySince   = MustVersion("2026-08-26") // FOREIGN KEY / REFERENCES
	statisticsSince   = MustVersion("2026-08-27") // CREATE/ALTER STATISTICS
	partialIndexSince = MustVersion("2026-09-15") // CREATE INDEX ASYNC ... WHERE
)

// NewestFeature is the date of the newest DSQL feature the rules know.
var NewestFeature = partialIndexSince

// DefaultConfig is the configuration RULES.md documents.
func DefaultConfig() *Config {
	return &Config{
		Target:        DefaultTarget,
		FenceColumns:  ParseColumns("range_id,version,*_version,db_record_version,next_event_id,notification_version,revision,epoch,etag,fencing_token"),
		OwnerColumns:  ParseColumns("worker_id,owner,owner_id,leader_id,lease_owner,*_orchestration_id,executor_id"),
		StateColumns:  ParseColumns("status,state,phase,next_run_at,last_run_at,expires_at,heartbeat_at,lease_expires_at,locked_until,sleep_until,next_retry_at"),
		ExpiryColumns: ParseColumns("expires_at,*_expires_at,lease_expiry,locked_until,lease_until"),
	}
}

// Enabled reports whether a rule runs.
func (c *Config) Enabled(id string) bool { return !c.Disabled[id] }

// Columns is a set of column name patterns.
type Columns []string

// ParseColumns parses a comma-separated list of names and *-globs.
func ParseColumns(s string) Columns {
	var c Columns
	for _, f := range strings.Split(s, ",") {
		if f = strings.ToLower(strings.TrimSpace(f)); f != "" {
			c = append(c, f)
		}
	}
	return c
}

func (c Columns) String() string { return strings.Join(c, ",") }

// Set implements flag.Value.
func (c *Columns) Set(s string) error { *c = ParseColumns(s); return nil }

// Has reports whether col matches one of the patterns.
func (c Columns) Has(col string) bool {
	for _, p := range c {
		switch {
		case p == col:
			return true
		case strings.HasPrefix(p, "*") && strings.HasSuffix(col, p[1:]) && len(col) > len(p)-1:
			return true
		case strings.HasSuffix(p, "*") && strings.HasPrefix(col, p[:len(p)-1]) && len(col) > len(p)-1:
			return true
		}
	}
	return false
}

// Version is a DSQL release date.
type Version struct{ t time.Time }

// DefaultTarget is the newest DSQL feature set the catalogue knows.
var DefaultTarget = MustVersion("2026-09")

// ParseVersion accepts YYYY-MM or YYYY-MM-DD.
func ParseVersion(s string) (Version, error) {
	for _, layout := range []string{"2006-01-02", "2006-01"} {
		if t, err := time.Parse(layout, s); err == nil {
			if layout == "2006-01" {
				t = t.AddDate(0, 1, -1) // a month means its last day
			}
			return Version{t}, nil
		}
	}
	return Version{}, fmt.Errorf("invalid DSQL version %q: want YYYY-MM or YYYY-MM-DD", s)
}

// MustVersion is ParseVersion for constants.
func MustVersion(s string) Version {
	v, err := ParseVersion(s)
	if err != nil {
		panic(err)
	}
	return v
}

// Before reports whether the target predates a feature released on date.
func (v Version) Before(date Version) bool { return v.t.Before(date.t) }

func (v Version) String() string { return v.t.Format("2006-01-02") }

// Set implements flag.Value.
func (v *Version) Set(s string) error {
	x, err := ParseVersion(s)
	if err == nil {
		*v = x
	}
	return err
}
