package dsqlcheck

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// txState is one connection's transaction as DSQL would account it.
type txState struct {
	open     bool
	began    time.Time
	ddl      int   // DDL statements run in it
	dml      bool  // a DML statement ran in it
	rows     int64 // rows modified
	reported bool  // the row limit was reported
	// aborted is the refusal that ended the transaction on DSQL: every
	// later statement fails until ROLLBACK, and COMMIT rolls back.
	aborted *Error
}

func (s *txState) begin() { *s = txState{open: true, began: time.Now()} }
func (s *txState) end()   { *s = txState{} }

var (
	errAborted     = &Error{Code: "25P02", Message: "current transaction is aborted, commands ignored until end of transaction block", Rule: "DSQL109"}
	errRowLimit    = &Error{Code: "54000", Message: "transaction row limit exceeded", Rule: "DSQL109"}
	errMultipleDDL = &Error{Code: "0A000", Message: "multiple ddl statements not supported in a transaction", Rule: "DSQL104"}
	errDDLAndDML   = &Error{Code: "0A000", Message: "ddl and dml are not supported in the same transaction", Rule: "DSQL104"}
)

// before judges a statement about to run on a connection: it records
// the findings, and returns the refusal DSQL would answer with (nil when
// it would run it, or when reject is false).
func (c *Checker) before(st *txState, v *verdict, sql string, reject bool) *Error {
	c.recordAll(v, sql)
	var refuse *Error
	if st.open && st.aborted != nil && v.class != classEnd {
		refuse = errAborted // (COMMIT and ROLLBACK end it)
	}
	if refuse == nil && v.refusal != nil {
		refuse = v.refusal
	}
	if st.open && refuse == nil && c.cfg.Enabled("DSQL104") {
		switch {
		case v.ddl && st.ddl > 0:
			c.record("DSQL104", message("DSQL104", "a second DDL statement in the transaction: Aurora DSQL allows one DDL statement per transaction "+
				"(0A000 multiple ddl statements not supported in a transaction); commit between them"), sql)
			refuse = errMultipleDDL
		case (v.ddl && st.dml) || (v.dml && st.ddl > 0):
			c.record("DSQL104", message("DSQL104", "DDL and DML in one transaction: Aurora DSQL runs them only in separate transactions "+
				"(0A000 ddl and dml are not supported in the same transaction); commit between them"), sql)
			refuse = errDDLAndDML
		}
	}
	if refuse != nil && reject {
		return refuse
	}
	if st.open {
		if v.ddl {
			st.ddl++
		}
		st.dml = st.dml || v.dml
	}
	return nil
}

// modified accounts the rows a statement changed; it returns the refusal
// of the statement that crosses DSQL's row limit.
func (c *Checker) modified(st *txState, rows int64, sql string, reject bool) *Error {
	if !c.cfg.Enabled("DSQL109") {
		return nil
	}
	total := rows
	if st.open {
		st.rows += rows
		total = st.rows
	}
	if total <= c.maxRows || st.reported {
		return nil
	}
	st.reported = st.open
	what := "this statement"
	if st.open {
		what = "this transaction"
	}
	c.record("DSQL109", message("DSQL109", fmt.Sprintf("%s modified %d rows: Aurora DSQL fails a transaction that modifies more than %d rows "+
		"(54000 transaction row limit exceeded); write in batches, one transaction each", what, total, c.maxRows)), sql)
	if !reject {
		return nil
	}
	if st.open {
		st.aborted = errRowLimit
	}
	return errRowLimit
}

// ending judges COMMIT: the transaction's age, and an abort DSQL would
// have made. It returns the error COMMIT answers with on DSQL.
func (c *Checker) ending(st *txState, sql string, reject bool) *Error {
	if !st.open {
		return nil
	}
	if age := time.Since(st.began); age > c.maxAge && c.cfg.Enabled("DSQL109") {
		c.record("DSQL109", message("DSQL109", fmt.Sprintf("a transaction open for %s: Aurora DSQL ends transactions older than %s "+
			"(54000 transaction age limit of %ds exceeded); keep transactions short", age.Round(time.Second), c.maxAge, int(c.maxAge.Seconds()))), sql)
		if reject {
			return &Error{Code: "54000", Message: fmt.Sprintf("transaction age limit of %ds exceeded", int(c.maxAge.Seconds())), Rule: "DSQL109"}
		}
	}
	if reject && st.aborted != nil {
		return st.aborted
	}
	return nil
}

// isolation judges a transaction's isolation option, by name
// ("Serializable"); "" and the levels DSQL runs are fine.
func (c *Checker) isolation(level, sql string, reject bool) *Error {
	switch level {
	case "", "Default", "Repeatable Read", "Snapshot":
		return nil
	}
	if !c.cfg.Enabled("DSQL009") {
		return nil
	}
	c.record("DSQL009", message("DSQL009", "isolation level "+level+" makes the driver send BEGIN ISOLATION LEVEL, which Aurora DSQL rejects "+
		"(0A000 Unsupported isolation level: "+strings.ToUpper(level)+"); DSQL runs every transaction at snapshot isolation (REPEATABLE READ): drop the option"), sql)
	if reject {
		return &Error{Code: "0A000", Message: "Unsupported isolation level: " + strings.ToUpper(level), Rule: "DSQL009"}
	}
	return nil
}

// DSQL's own statements and their PostgreSQL equivalents.
var (
	asyncIndex    = regexp.MustCompile(`(?is)^(\s*create\s+(?:unique\s+)?index\s+)async\s+`)
	asyncAlter    = regexp.MustCompile(`(?is)^(\s*alter\s+table\s+)async\s+`)
	waitForJob    = regexp.MustCompile(`(?is)^\s*call\s+sys\s*\.\s*wait_for_job\s*\(`)
	noWaitForJobs = "SELECT true AS wait_for_job"
)

// withoutAsync returns the PostgreSQL form of a statement written for
// DSQL, or "" when it needs none.
func withoutAsync(text string) string {
	switch {
	case asyncIndex.MatchString(text):
		return asyncIndex.ReplaceAllString(text, "${1}")
	case asyncAlter.MatchString(text):
		return alterJob(text)
	case waitForJob.MatchString(text):
		return noWaitForJobs
	}
	return ""
}

// withoutAsyncIn is withoutAsync for each statement of a multi-statement
// text (`BEGIN; CREATE INDEX ASYNC ...; COMMIT` in one simple query), or
// "" when none needs it.
func withoutAsyncIn(text string, s *sqlparse.Script) string {
	var b strings.Builder
	last := 0
	for _, st := range s.Stmts {
		if st.Span.Start < last || st.Span.End > len(text) {
			return ""
		}
		if pg := withoutAsync(text[st.Span.Start:st.Span.End]); pg != "" {
			b.WriteString(text[last:st.Span.Start])
			b.WriteString(pg)
			last = st.Span.End
		}
	}
	if last == 0 {
		return ""
	}
	b.WriteString(text[last:])
	return b.String()
}

const (
	classBegin = sqlparse.ClassBegin
	classEnd   = sqlparse.ClassEnd
)
