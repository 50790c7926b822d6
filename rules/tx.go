package rules

import (
	"slices"

	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// PriorKind is what a statement that runs earlier in a write's
// transaction does that DSQL003 weighs.
type PriorKind uint8

const (
	// PriorLock: a FOR UPDATE (or a FOR NO KEY UPDATE, which DSQL001's fix
	// makes one) of Table's rows, picked by Keys (none for a claim that
	// picks them by their state). A racing writer of those rows fails at
	// COMMIT on DSQL.
	PriorLock PriorKind = iota + 1
	// PriorShare: a FOR SHARE or FOR KEY SHARE of Table's rows reading
	// Columns, the tokens the transaction relies on.
	PriorShare
	// PriorAdvisory: an advisory lock (What names the function).
	PriorAdvisory
	// PriorLockTable: LOCK TABLE of Table.
	PriorLockTable
	// PriorInsert: an INSERT into Table: a row no other process has seen.
	PriorInsert
	// PriorSerializable: the transaction is set SERIALIZABLE.
	PriorSerializable
	// PriorRead: a read of Table's rows picked by Keys (and by constants
	// in Columns), in a SERIALIZABLE transaction (a guard over other rows,
	// such as a count).
	PriorRead
)

// Prior is a statement that runs before a write in its transaction.
type Prior struct {
	Kind    PriorKind
	Table   string
	Keys    []string
	Columns []string
	What    string
	At      string // "store/shard.go:12"
}

// TxView is what runs before a statement in its transaction: Every are
// the priors of every way the statement runs, Some those of at least one.
type TxView struct {
	Every, Some []Prior
}

// PriorsOf returns what statement st, found at at, establishes for the
// statements after it in its transaction.
func PriorsOf(st *sqlparse.Statement, at string) []Prior {
	var out []Prior
	for _, l := range st.Locks {
		if l.Select == nil || l.Deleted || len(l.Select.Tables) != 1 || l.Select.Tables[0].Unknown() {
			continue
		}
		t := l.Select.Tables[0].Name
		keys := fencing.KeyColumns(l.Select.Where)
		switch l.Strength {
		case sqlparse.ForUpdate, sqlparse.ForNoKeyUpdate:
			out = append(out, Prior{Kind: PriorLock, Table: t, Keys: keys, At: at})
		case sqlparse.ForShare, sqlparse.ForKeyShare, sqlparse.LockInShareMode:
			var tokens []string
			for _, c := range l.Select.Columns {
				if !slices.Contains(keys, c) {
					tokens = append(tokens, c)
				}
			}
			out = append(out, Prior{Kind: PriorShare, Table: t, Keys: keys, Columns: tokens, What: l.Strength.String(), At: at})
		}
	}
	if name := fencing.AdvisoryCall(st); name != "" {
		out = append(out, Prior{Kind: PriorAdvisory, What: name, At: at})
	}
	if st.Node == "LockStmt" {
		for _, t := range st.Reads {
			out = append(out, Prior{Kind: PriorLockTable, Table: t.Name, What: "LOCK TABLE", At: at})
		}
	}
	if st.Into != nil && !st.Into.Unknown() {
		out = append(out, Prior{Kind: PriorInsert, Table: st.Into.Name, At: at})
	}
	if st.Tx != nil && st.Tx.Isolation == "serializable" && (st.Tx.Kind == sqlparse.TxBegin || st.Tx.Kind == sqlparse.TxSetTransaction) {
		out = append(out, Prior{Kind: PriorSerializable, What: "ISOLATION LEVEL SERIALIZABLE", At: at})
	}
	return out
}

// has returns the first prior of kind on table ("" for any table) that
// match accepts.
func has(ps []Prior, kind PriorKind, table string, match func(Prior) bool) (Prior, bool) {
	for _, p := range ps {
		if p.Kind == kind && (table == "" || p.Table == table) && (match == nil || match(p)) {
			return p, true
		}
	}
	return Prior{}, false
}

// lockCovers reports a lock prior that holds the rows a write pinning
// keys picks: the lock pins a subset of them, or picks its rows by other
// columns than the write (their state, a parent: a claim the write then
// completes by the rows' ids).
func lockCovers(p Prior, keys []string) bool {
	in := 0
	for _, k := range p.Keys {
		if slices.Contains(keys, k) {
			in++
		}
	}
	return in == len(p.Keys) || in == 0
}
