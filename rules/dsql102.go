package rules

import (
	"fmt"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// SequenceCache is DSQL102.
var SequenceCache = register(&Rule{
	ID:       "DSQL102",
	Name:     "sequence-cache",
	Severity: Error,
	Summary:  "sequences and identity columns need CACHE 1 or CACHE >= 65536 and bigint on Aurora DSQL",
	check:    checkSequenceCache,
})

func checkSequenceCache(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
	f := factsOf(st)
	early := ctx.Config.Target.Before(sequencesSince)
	if sq := f.Sequence; sq != nil {
		what := "CREATE SEQUENCE"
		if sq.Alter {
			what = "ALTER SEQUENCE"
		}
		switch {
		case early:
			report(sq.Words, what+": Aurora DSQL supports sequences only since 2026-02-13"+targetNote(ctx)+
				" (0A000); use uuid DEFAULT gen_random_uuid() keys", nil)
			return
		case !sq.Alter || sq.Options.HasCache:
			cacheFinding(ctx, report, sq.Options, sq.Words, what, "CREATE SEQUENCE")
		}
		if as := sq.Options.As; as != nil && as.Name != "int8" && builtin(*as) {
			typeFinding(ctx, report, *as, "sequence type "+sqlType(*as)+": Aurora DSQL sequences are bigint only")
		}
	}
	for _, col := range columnsOf(f) {
		for i := range col.Constraints {
			con := &col.Constraints[i]
			if con.Kind != sqlparse.ConIdentity {
				continue
			}
			switch {
			case early:
				report(con.Span, "identity column "+col.Name+": Aurora DSQL supports identity columns only since 2026-02-13"+targetNote(ctx)+
					" (0A000); use uuid DEFAULT gen_random_uuid() keys", nil)
			case col.added:
				report(con.Span, "identity column "+col.Name+" added by ALTER TABLE ADD COLUMN: Aurora DSQL adds only bare columns "+
					"(0A000 ALTER TABLE ADD COLUMN with constraint not supported); declare the identity in CREATE TABLE, "+
					"or add a plain bigint column and fill it", nil)
			default:
				cacheFinding(ctx, report, con.Identity, con.Span, "identity column "+col.Name, "identity column")
				if col.Type.Name != "int8" && builtin(col.Type) {
					typeFinding(ctx, report, col.Type, "identity column "+col.Name+" of type "+sqlType(col.Type)+
						": Aurora DSQL requires bigint (0A000 datatype "+sqlType(col.Type)+" not supported, identity column type must be bigint)")
				}
			}
		}
	}
	// ALTER COLUMN ... ADD GENERATED AS IDENTITY is refused whatever its
	// CACHE: DSQL108.
}

// cacheFinding reports a missing or unusable CACHE. server names the
// object in DSQL's message ("CREATE SEQUENCE", "identity column").
func cacheFinding(ctx *Context, report func(sqlparse.Span, string, *Fix), so *sqlparse.SeqOptions, at sqlparse.Span, what, server string) {
	if so == nil {
		return
	}
	switch {
	case !so.HasCache:
		var fix *Fix
		if validInsert(ctx, so.Insert) {
			fix = insertion("Add CACHE 1", so.Insert, matchCase(so.InsertText, textOf(ctx, so.Like)))
		}
		report(at, what+" without an explicit CACHE: Aurora DSQL requires CACHE 1 or CACHE >= 65536 (0A000 "+server+
			" is not supported without an explicit cache size. please define CACHE greater than or equal to 65536 or equal to 1); add CACHE 1", fix)
	case so.Cache != 1 && so.Cache < 65536:
		var fix *Fix
		if textOf(ctx, so.CacheSpan) == fmt.Sprint(so.Cache) {
			fix = &Fix{Message: "Use CACHE 1", Edits: []Edit{{Span: so.CacheSpan, New: "1"}}}
		}
		sp := so.CacheSpan
		if textOf(ctx, sp) == "" {
			sp = at
		}
		report(sp, fmt.Sprintf("%s with CACHE %d: Aurora DSQL accepts only CACHE 1 or CACHE >= 65536 (0A000); use CACHE 1 (or 65536 and more for throughput, with gaps)", what, so.Cache), fix)
	}
}

// typeFinding reports a sequence or identity type that is not bigint, with
// a fix that writes bigint for the one-word integer types.
func typeFinding(ctx *Context, report func(sqlparse.Span, string, *Fix), t sqlparse.TypeRef, msg string) {
	var fix *Fix
	switch w := textOf(ctx, t.Span); t.Name {
	case "int2", "int4":
		if w != "" && !t.Array && len(t.Mods) == 0 {
			fix = &Fix{Message: "Use bigint", Edits: []Edit{{Span: t.Span, New: matchCase("BIGINT", w)}}}
		}
	}
	report(t.Span, msg+"; use bigint", fix)
}
