package rules

import (
	"strings"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// forKeyShareSince is the date DSQL began to accept FOR KEY SHARE.
var forKeyShareSince = MustVersion("2026-08-25")

// RejectsStrength reports whether Aurora DSQL, at the configured target,
// rejects a locking clause of strength s: everything but FOR UPDATE, and
// FOR KEY SHARE before 2026-08-25. The ORM forms ask the same question.
func (c *Config) RejectsStrength(s sqlparse.Strength) bool {
	switch s {
	case sqlparse.ForUpdate:
		return false
	case sqlparse.ForKeyShare:
		return c.Target.Before(forKeyShareSince)
	}
	return true
}

// ShareLock is DSQL001.
var ShareLock = register(&Rule{
	ID:       "DSQL001",
	Name:     "share-lock",
	Severity: Error,
	Summary:  "FOR SHARE / FOR NO KEY UPDATE are rejected by Aurora DSQL (0A000)",
	check: func(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
		for _, l := range st.Locks {
			if !locksRows(st, l) {
				continue
			}
			if l.Strength == sqlparse.LockInShareMode || !ctx.Config.RejectsStrength(l.Strength) {
				continue // DSQL002 reports the MySQL spelling
			}
			report(l.Span, shareLockMessage(l.Strength, ctx.Config.Target), toForUpdate(ctx.Text, l))
		}
	},
})

func shareLockMessage(s sqlparse.Strength, target Version) string {
	since := ""
	if s == sqlparse.ForKeyShare {
		since = " before 2026-08-25 (target " + target.String() + ")"
	}
	return s.String() + " is not supported by Aurora DSQL" + since +
		" (0A000 locking clauses other than FOR UPDATE/FOR KEY SHARE are not supported); " +
		"use FOR UPDATE, or drop the clause if every later write of this row is fenced"
}

// locksRows filters out what cannot be a real locking read: a SELECT with no
// FROM locks nothing, and prose that happens to parse has none.
func locksRows(st *sqlparse.Statement, l *sqlparse.Lock) bool {
	return st.Fragment || (l.Select != nil && l.Select.HasFrom)
}

// toForUpdate rewrites a locking clause to FOR UPDATE, editing as little as
// possible so that line breaks and the case of the words around stay:
// `for share` becomes `for update`, `FOR NO KEY\n  UPDATE` loses `NO KEY\n  `.
func toForUpdate(text string, l *sqlparse.Lock) *Fix {
	w := l.Words
	var e Edit
	switch {
	case l.Strength == sqlparse.ForShare && len(w) == 2:
		e = Edit{w[1], matchCase("UPDATE", text[w[1].Start:w[1].End])}
	case l.Strength == sqlparse.ForKeyShare && len(w) == 3:
		e = Edit{sqlparse.Span{Start: w[1].Start, End: w[2].End}, matchCase("UPDATE", text[w[2].Start:w[2].End])}
	case l.Strength == sqlparse.ForNoKeyUpdate && len(w) == 4:
		e = Edit{sqlparse.Span{Start: w[1].Start, End: w[3].Start}, ""}
	case l.Strength == sqlparse.LockInShareMode && len(w) == 4:
		e = Edit{sqlparse.Span{Start: w[0].Start, End: w[3].End}, matchCase("FOR UPDATE", text[w[0].Start:w[0].End])}
	default:
		return nil
	}
	return &Fix{Message: "Replace " + l.Strength.String() + " with FOR UPDATE", Edits: []Edit{e}}
}

// matchCase spells word in the case of like: all lower, Capitalised, or upper.
func matchCase(word, like string) string {
	switch {
	case like == strings.ToLower(like):
		return strings.ToLower(word)
	case like == strings.ToUpper(like):
		return word
	case len(like) > 1 && like[1:] == strings.ToLower(like[1:]):
		return word[:1] + strings.ToLower(word[1:])
	}
	return word
}
