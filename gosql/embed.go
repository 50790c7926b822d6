package gosql

import (
	"go/ast"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dsqllint/dsqllint/sqltext"
)

// Embedded returns the .sql files the package embeds with //go:embed, read
// through the pass where the driver allows it and from the package
// directory otherwise (drivers only admit Go and "other" files to
// Pass.ReadFile, and Embedded files are neither).
func (c *Package) Embedded() []*sqltext.Text {
	var texts []*sqltext.Text
	seen := map[string]bool{}
	for _, f := range c.Pass.Files {
		dir := filepath.Dir(c.Pass.Fset.File(f.Pos()).Name())
		for _, cg := range f.Comments {
			for _, patterns := range embedPatterns(cg) {
				for _, name := range embedFiles(dir, patterns) {
					if seen[name] {
						continue
					}
					seen[name] = true
					if t := c.SQLFile(name); t != nil {
						texts = append(texts, t)
					}
				}
			}
		}
	}
	return texts
}

// linkEmbedded makes an embedded .sql file the text of the query calls
// that run its variable (tx.QueryRow(lockStmt, id), where //go:embed
// lock.sql declares lockStmt): its locks and writes run there, in that
// call's transaction, as a constant's do. It also notes the files a call
// runs as one string (RunWhole).
func (c *Package) linkEmbedded(files []*sqltext.Text) {
	c.runWhole = map[string]bool{}
	vars := c.embeddedVars()
	if len(vars) == 0 {
		return
	}
	byName := make(map[string]*sqltext.Text, len(files))
	for _, t := range files {
		if f := c.Pass.Fset.File(t.Pos(0, false)); f != nil {
			byName[f.Name()] = t
		}
	}
	for _, q := range c.Queries {
		arg := ast.Unparen(q.arg)
		if conv, ok := arg.(*ast.CallExpr); ok && len(conv.Args) == 1 && c.Pass.TypesInfo.Types[conv.Fun].IsType() {
			arg = ast.Unparen(conv.Args[0]) // string(lockSQL)
		}
		id, ok := arg.(*ast.Ident)
		if !ok {
			continue
		}
		name, ok := vars[c.Pass.TypesInfo.Uses[id]]
		if !ok {
			continue
		}
		c.runWhole[name] = true
		if t := byName[name]; t != nil && q.Text == nil {
			q.Text, t.Known = t, true
			if t.Scope == nil {
				t.Scope = q.Scope
			}
		}
	}
}

// RunWhole reports an embedded .sql file that a query call of the
// package runs as one string (db.ExecContext(ctx, schemaSQL), where
// //go:embed schema.sql declares schemaSQL): one Exec, one implicit
// transaction for all its statements.
func (c *Package) RunWhole(name string) bool { return c.runWhole[name] }

// embeddedVars maps the package variables //go:embed fills with one .sql
// file to that file.
func (c *Package) embeddedVars() map[types.Object]string {
	out := map[types.Object]string{}
	for _, f := range c.Pass.Files {
		dir := filepath.Dir(c.Pass.Fset.File(f.Pos()).Name())
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, sp := range gd.Specs {
				vs, ok := sp.(*ast.ValueSpec)
				if !ok || len(vs.Names) != 1 {
					continue
				}
				doc := vs.Doc // the spec's own, in a var ( ... ) block
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				obj := c.Pass.TypesInfo.Defs[vs.Names[0]]
				for _, patterns := range embedPatterns(doc) {
					if names := embedFiles(dir, patterns); len(names) == 1 && obj != nil {
						out[obj] = names[0]
					}
				}
			}
		}
	}
	return out
}

// embedPatterns returns the arguments of the //go:embed directives of a
// comment group (nil for none).
func embedPatterns(cg *ast.CommentGroup) []string {
	if cg == nil {
		return nil
	}
	var out []string
	for _, cm := range cg.List {
		if patterns, ok := strings.CutPrefix(cm.Text, "//go:embed "); ok {
			out = append(out, patterns)
		}
	}
	return out
}

// embedFiles expands //go:embed patterns to the .sql files they name.
func embedFiles(dir, patterns string) []string {
	var out []string
	for _, p := range splitPatterns(patterns) {
		p = strings.TrimPrefix(p, "all:")
		matches, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(p)))
		for _, m := range matches {
			_ = filepath.WalkDir(m, func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".sql") {
					out = append(out, path)
				}
				return nil
			})
		}
	}
	return out
}

// splitPatterns splits a //go:embed argument list: space-separated,
// optionally Go-quoted.
func splitPatterns(s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' || s[0] == '`' {
			if q, err := strconv.QuotedPrefix(s); err == nil {
				if v, err := strconv.Unquote(q); err == nil {
					out = append(out, v)
				}
				s = s[len(q):]
				continue
			}
		}
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			i = len(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// SQLFile reads a .sql file into a Text mapped onto a new token.File.
func (c *Package) SQLFile(name string) *sqltext.Text {
	if c.Settings != nil && c.Settings.OtherDialect(name) {
		return nil // another database's copy of the module's SQL
	}
	var data []byte
	var err error
	if c.Pass.ReadFile != nil {
		data, err = c.Pass.ReadFile(name)
	}
	if c.Pass.ReadFile == nil || err != nil {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil
	}
	return FileText(c.Pass.Fset, name, data)
}

// FileText maps the contents of a .sql file onto a new file of fset.
func FileText(fset *token.FileSet, name string, data []byte) *sqltext.Text {
	tf := fset.AddFile(name, -1, len(data))
	tf.SetLinesForContent(data)
	return &sqltext.Text{
		SQL:    string(data),
		Pieces: []sqltext.Piece{{Start: 0, End: len(data), Pos: tf.Pos(0), EndPos: tf.Pos(len(data)), Kind: sqltext.File}},
		Known:  true,
	}
}
