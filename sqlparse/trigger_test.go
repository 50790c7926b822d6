package sqlparse

import (
	"reflect"
	"testing"
)

func TestTriggerChecks(t *testing.T) {
	fn := `CREATE FUNCTION guard_links() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.closed_reason IS NOT NULL THEN
    RAISE EXCEPTION 'link % is closed', OLD.id;
  END IF;
  IF OLD.status = 'done' AND NEW.status <> OLD.status THEN
    RETURN NULL;
  ELSIF OLD.owner NOT IN ('a', 'b') AND OLD.kind = 2 THEN
    RAISE 'not yours';
  END IF;
  IF NEW.note IS NULL THEN
    RAISE NOTICE 'no note';
  END IF;
  NEW.version := OLD.version + 1;
  RETURN NEW;
END $$`
	st := Parse(fn).Stmts[0]
	if len(st.Changes) != 1 || st.Changes[0].Kind != ChangeCreateFunction || st.Changes[0].Function == nil {
		t.Fatalf("changes %+v", st.Changes)
	}
	got := st.Changes[0].Function.Checks
	want := []TriggerCheck{
		{Kind: CheckRefuse, Cond: "OLD.closed_reason IS NOT NULL", Old: []string{"closed_reason"}, Restore: "closed_reason IS NULL", Line: 4},
		{Kind: CheckRefuse, Cond: "OLD.status = 'done' AND NEW.status <> OLD.status", Old: []string{"status"}, New: []string{"status"}, Restore: "status <> 'done'", Line: 7},
		{Kind: CheckRefuse, Cond: "OLD.owner NOT IN ('a', 'b') AND OLD.kind = 2", Old: []string{"owner", "kind"}, Restore: "NOT (owner NOT IN ('a', 'b') AND kind = 2)", Line: 9},
		{Kind: CheckVersion, Column: "version", Line: 14},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("checks\n got %+v\nwant %+v", got, want)
	}
	// A function that returns no trigger, or is SQL, checks no row.
	for _, q := range []string{
		"CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'x'; END $$",
		"CREATE FUNCTION f() RETURNS trigger LANGUAGE sql AS $$ SELECT 1 $$",
	} {
		if st := Parse(q).Stmts[0]; len(st.Changes) != 1 || len(st.Changes[0].Function.Checks) != 0 {
			t.Errorf("%q: %+v", q, st.Changes)
		}
	}
}

func TestTriggerDef(t *testing.T) {
	st := Parse("CREATE TRIGGER no_reopen BEFORE UPDATE OF active_range, status ON public.links FOR EACH ROW WHEN (OLD.closed_reason IS NOT NULL) EXECUTE FUNCTION app.refuse()").Stmts[0]
	if len(st.Changes) != 1 {
		t.Fatalf("changes %+v", st.Changes)
	}
	ch := st.Changes[0]
	want := &TriggerDef{Name: "no_reopen", Function: "refuse", Before: true, Row: true, Events: OnUpdate, Columns: []string{"active_range", "status"}, When: "OLD.closed_reason IS NOT NULL"}
	if ch.Kind != ChangeCreateTrigger || ch.Table.Name != "links" || !reflect.DeepEqual(ch.Trigger, want) {
		t.Errorf("got %+v %+v", ch, ch.Trigger)
	}
	st = Parse("CREATE TRIGGER audit AFTER INSERT OR DELETE ON links FOR EACH STATEMENT EXECUTE PROCEDURE audit()").Stmts[0]
	if d := st.Changes[0].Trigger; d.Before || d.Row || d.Events != OnInsert|OnDelete {
		t.Errorf("after trigger: %+v", d)
	}
	st = Parse("DROP TRIGGER no_reopen ON public.links").Stmts[0]
	if len(st.Changes) != 1 || st.Changes[0].Kind != ChangeDropTrigger || st.Changes[0].Name != "no_reopen" || st.Changes[0].Table.Name != "links" {
		t.Errorf("drop: %+v", st.Changes)
	}
}

func TestNegate(t *testing.T) {
	for in, want := range map[string]string{
		"OLD.state = 'closed'":       "state <> 'closed'",
		"OLD.n >= 3":                 "n < 3",
		"OLD.state IN ('a', 'b')":    "state NOT IN ('a', 'b')",
		"OLD.state NOT IN ('a')":     "state IN ('a')",
		"NOT OLD.active":             "active",
		"OLD.locked":                 "NOT (locked)",
		"lower(OLD.owner) = 'x'":     "lower(owner) <> 'x'",
		"OLD.deleted_at IS NOT NULL": "deleted_at IS NULL",
	} {
		if got := negate([]string{in}); got != want {
			t.Errorf("negate(%q) = %q, want %q", in, got, want)
		}
	}
}
