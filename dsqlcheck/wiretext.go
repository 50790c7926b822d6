package dsqlcheck

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
)

// The texts the wire checker sends PostgreSQL instead of a client's:
// DSQL's own statements in their PostgreSQL form, and statements that fail
// where DSQL's would, so that the server itself aborts the transaction
// and skips the rest of the pipeline as it does after any error.

// markerName names a prepared statement that does not exist: executing it
// fails with 26000 `prepared statement "dsqlcheck:7" does not exist`, and
// the proxy answers the client with the refusal it stands for.
func markerName(n int) string { return fmt.Sprintf("dsqlcheck:%d", n) }

// markerQuery is the simple-protocol form of a marker.
func markerQuery(n int) string { return `EXECUTE "` + markerName(n) + `"` }

// markerIn finds a marker's number in a server error's message.
var markerIn = regexp.MustCompile(`"dsqlcheck:(\d+)"`)

// asyncIndexName reads what CREATE INDEX ASYNC builds: "[schema.]table"
// gives the schema, the index lives beside its table.
var asyncIndexName = regexp.MustCompile(`(?is)^\s*create\s+(?:unique\s+)?index\s+async\s+(?:if\s+not\s+exists\s+)?("?[\w$]+"?)\s+on\s+(?:only\s+)?(?:("?[\w$]+"?)\s*\.\s*)?"?[\w$]+"?`)

// asyncJob returns the job id DSQL would answer a CREATE INDEX ASYNC
// with, or "" when the statement is not one. The id is derived from the
// index it builds ("public.t_v"), so that sys.jobs, which reads the
// server's catalog, lists it under the same id.
func asyncJob(text string) string {
	m := asyncIndexName.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	schema := unquoteIdent(m[2])
	if schema == "" {
		schema = "public"
	}
	return hashID(schema + "." + unquoteIdent(m[1]))
}

// jobOf returns the id of the job DSQL answers a statement with, and the
// statement's command tag ("" when it starts none).
func jobOf(text string) (id, tag string) {
	if id := asyncJob(text); id != "" {
		return id, "CREATE INDEX"
	}
	if asyncAlter.MatchString(text) {
		return hashID(text), "ALTER TABLE"
	}
	return "", ""
}

// jobIDQuery answers with a job id, as DSQL's job-starting statements do.
func jobIDQuery(id string) string { return "SELECT " + sqlString(id) + "::text AS job_id" }

// hashID is a job id made from a name: its MD5 written as a UUID, the
// form DSQL's job ids have, which sysJobs computes alike on the server
// (md5(name)::uuid).
func hashID(name string) string {
	sum := md5.Sum([]byte(name))
	h := hex.EncodeToString(sum[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func unquoteIdent(s string) string {
	if strings.HasPrefix(s, `"`) {
		return strings.Trim(s, `"`)
	}
	return strings.ToLower(s)
}

// alterJob is ALTER TABLE ASYNC in PostgreSQL: the ALTER TABLE, whose
// failure, as on DSQL, fails the job rather than the statement. The
// failure is left where the checker reads it: a warning the wire checker
// takes out of the stream, and a setting the database/sql wrapper reads
// after (jobErrorQuery).
func alterJob(text string) string {
	alter := asyncAlter.ReplaceAllString(text, "${1}")
	tag := dollarTag(alter)
	return "DO " + tag + " BEGIN EXECUTE " + sqlString(alter) + "; " +
		"EXCEPTION WHEN OTHERS THEN PERFORM set_config('dsqlcheck.job_error', SQLERRM, false); " +
		"RAISE WARNING '" + jobWarning + "%: %', " + sqlString(hashID(text)) + ", SQLERRM; END " + tag
}

// jobWarning begins the warning a failed ALTER TABLE ASYNC job raises.
const jobWarning = "dsqlcheck job "

// jobErrorQuery reads, and clears, the failure of the last ALTER TABLE
// ASYNC job on the connection ("" when it ran).
const jobErrorQuery = "SELECT coalesce(current_setting('dsqlcheck.job_error', true), ''), set_config('dsqlcheck.job_error', '', false)"

// asyncObject names what an ALTER TABLE ASYNC works on: its table.
var asyncObject = regexp.MustCompile(`(?is)^\s*alter\s+table\s+async\s+(?:if\s+exists\s+)?(?:only\s+)?((?:"?[\w$]+"?\s*\.\s*)?"?[\w$]+"?)`)

// sysJobs is DSQL's view of asynchronous builds, in the columns programs
// read (job_id, status, details, job_type, object_name), made from the
// server's catalog: every index PostgreSQL has built (synchronously, as
// the translated ASYNC statements run) is a completed job, one left
// invalid by a failed build a failed one. Indexes behind constraints
// (keys made by CREATE TABLE) were no jobs.
const sysJobs = `(SELECT md5(n.nspname || '.' || c.relname)::uuid::text AS job_id,
 CASE WHEN i.indisvalid THEN 'completed' ELSE 'failed' END AS status, NULL::text AS details,
 'INDEX_BUILD'::text AS job_type, n.nspname || '.' || c.relname AS object_name
 FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
 JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
 AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.conindid = i.indexrelid)` + jobsMark + `)`

// jobsMark is where the ALTER TABLE ASYNC jobs the checker ran join the
// index builds in sys.jobs (Checker.withJobs).
const jobsMark = "/*dsqlcheck:jobs*/"

// sysJobsRef finds sys.jobs used as a relation, and what follows it.
var sysJobsRef = regexp.MustCompile(`(?i)\bsys\s*\.\s*jobs\b(\s*(?:as\s+)?([a-z_][\w$]*)?)`)

// notAlias are the words that can follow a relation without naming it.
var notAlias = map[string]bool{"where": true, "join": true, "inner": true, "left": true, "right": true, "full": true, "cross": true,
	"natural": true, "on": true, "using": true, "order": true, "group": true, "limit": true, "offset": true, "having": true,
	"union": true, "except": true, "intersect": true, "for": true, "window": true, "fetch": true, "returning": true}

// withSysJobs returns text with sys.jobs read from the server's catalog,
// or "" when it does not read sys.jobs.
func withSysJobs(text string) string {
	if !sysJobsRef.MatchString(text) {
		return ""
	}
	return sysJobsRef.ReplaceAllStringFunc(text, func(ref string) string {
		m := sysJobsRef.FindStringSubmatch(ref)
		if m[2] != "" && !notAlias[strings.ToLower(m[2])] {
			return sysJobs + m[1] // the program's alias names the subquery
		}
		return sysJobs + " AS jobs" + m[1]
	})
}

// keyGuarded returns a DO block that runs an ALTER TABLE ... DROP COLUMN
// unless a dropped column is in its table's primary key, as the server's
// catalog tells; then it raises that column's marker (mark's number).
func keyGuarded(text string, v *verdict, mark func(column, table string) int) string {
	var b strings.Builder
	tag := dollarTag(text)
	b.WriteString("DO " + tag + " BEGIN ")
	for _, ch := range v.dropColumns {
		table := qualifiedTable(ch)
		fmt.Fprintf(&b, "IF %s THEN RAISE EXCEPTION %s; END IF; ",
			fmt.Sprintf(isKeyColumn, sqlString(table), sqlString(ch.Name)), sqlString(`refused "`+markerName(mark(ch.Name, table))+`"`))
	}
	fmt.Fprintf(&b, "EXECUTE %s; END %s", sqlString(text), tag)
	return b.String()
}

// dollarTag is a dollar quote the text does not contain.
func dollarTag(text string) string {
	tag := "$dsqlcheck$"
	for i := 0; strings.Contains(text, tag); i++ {
		tag = fmt.Sprintf("$dsqlcheck%d$", i)
	}
	return tag
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// waitForJobPG is CALL sys.wait_for_job in PostgreSQL: the build is done.
// The job's id, when it comes as a parameter, is read as the UUID it is
// on DSQL, and dropped.
func waitForJobPG(text string) string {
	if strings.Contains(text, "$1") {
		return "SELECT true AS wait_for_job FROM (SELECT $1::uuid) AS job"
	}
	return noWaitForJobs
}

// waitForJobAnywhere finds sys.wait_for_job called in any statement.
var waitForJobAnywhere = regexp.MustCompile(`(?i)\bsys\s*\.\s*wait_for_job\s*\(`)

// waitForJobArg reads the argument of CALL sys.wait_for_job: a subquery
// (1), or a string literal (2).
var waitForJobArg = regexp.MustCompile(`(?is)^\s*call\s+sys\s*\.\s*wait_for_job\s*\(\s*(?:(\(\s*select\b)|'([^']*)'\s*\)\s*;?\s*$)`)

var uuidText = regexp.MustCompile(`^(?i)\{?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\}?$`)

// waitForJobRefusal is DSQL's answer to a use of sys.wait_for_job it
// refuses: called as a function, with a subquery, or with a literal that
// is no job id (nil when it runs).
func waitForJobRefusal(text string) *Error {
	const rule = "sys.wait_for_job"
	switch {
	case !waitForJobAnywhere.MatchString(text):
		return nil
	case !waitForJob.MatchString(text):
		return &Error{Code: "42809", Message: "sys.wait_for_job(text) is a procedure", Rule: rule}
	}
	m := waitForJobArg.FindStringSubmatch(text)
	switch {
	case m == nil:
		return nil
	case m[1] != "":
		return &Error{Code: "0A000", Message: "cannot use subquery in CALL argument", Rule: rule}
	case !uuidText.MatchString(m[2]):
		return &Error{Code: "22P02", Message: "Unable to convert text to UUID", Rule: rule}
	}
	return nil
}
