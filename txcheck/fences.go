package txcheck

import (
	"slices"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/sqltext"
)

// goSchema returns the tables the package's Go strings create (dendrite's
// `const schema = "CREATE TABLE ..."`, a Go migration's DDL), nil when
// none does.
func (c *checker) goSchema(parsed []*gosql.Parsed) *catalog.Catalog {
	var cat *catalog.Catalog
	for _, p := range parsed {
		if p.Text.Node == nil || !slices.ContainsFunc(p.Script.Stmts, func(st *sqlparse.Statement) bool { return st.Create != nil }) {
			continue
		}
		if cat == nil {
			cat = catalog.New()
		}
		cat.Apply(c.Pass.Fset.Position(p.Text.Pos(0, false)).Filename, p.Script)
	}
	return cat
}

// learn records what st, of text t, shows of contention.
func (c *checker) learn(fences *fencing.Fences, t *sqltext.Text, st *sqlparse.Statement) {
	at := ""
	if st.Write != nil || len(st.Locks) > 0 || len(st.Reads) > 0 {
		at = c.Where(t.Pos(st.Span.Start, false))
	}
	fences.Learn(&c.Settings.Cfg.Known, st, at)
}

// learnFences learns what the package's statements show of fencing
// (DSQL003's evidence): what its Go strings create, then every statement
// but those that run once. Generated texts are learned last: the evidence
// cited is the query file sqlc read.
func (c *checker) learnFences(parsed []*gosql.Parsed) *fencing.Fences {
	fences := fencing.NewFences()
	if local := c.goSchema(parsed); local != nil {
		fences.UseKeysOf(local)
	}
	for _, generated := range []bool{false, true} {
		for _, p := range parsed {
			if p.Text.Generated != generated || c.Once(p.Text) {
				continue
			}
			for _, st := range p.Script.Stmts {
				c.learn(fences, p.Text, st)
			}
		}
	}
	return fences
}
