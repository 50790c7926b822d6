//go:build cgo

package sqlparse

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	wasm "github.com/wasilibs/go-pgquery"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TestParsersAgree: the WebAssembly build of libpg_query, which builds
// without cgo use, gives the tree the cgo build gives, or the same error,
// on every SQL text of the project's corpus: each .sql file and each Go
// string literal of the testdata packages, the bundled example and this
// package's own tests. The findings are computed from that tree alone.
func TestParsersAgree(t *testing.T) {
	var texts []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		switch {
		case strings.HasSuffix(path, ".sql"):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			texts = append(texts, string(data))
		case strings.HasSuffix(path, ".go") && (strings.Contains(path, "testdata") || strings.HasPrefix(path, "../examples") || strings.HasPrefix(path, "../sqlparse")):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			texts = append(texts, goStrings(data)...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	trees, errs := 0, 0
	for _, text := range texts {
		want, wantErr := pg.Parse(text)
		got, gotErr := wasm.Parse(text)
		switch {
		case (wantErr == nil) != (gotErr == nil):
			t.Errorf("cgo: %v, wasm: %v\n%s", wantErr, gotErr, text)
		case wantErr != nil:
			errs++
			if wantErr.Error() != gotErr.Error() {
				t.Errorf("errors differ: cgo %q, wasm %q\n%s", wantErr, gotErr, text)
			}
		case !proto.Equal(withoutNewFields(want), withoutNewFields(got)):
			t.Errorf("trees differ\n%s", text)
		default:
			trees++
		}
	}
	t.Logf("%d texts: %d trees and %d errors alike", len(texts), trees, errs)
	if trees < 300 {
		t.Fatalf("only %d texts parsed: the corpus was not found", trees)
	}
}

// newFields are the fields libpg_query added after the version the
// WebAssembly build carries; the cgo build sets them, the WebAssembly one
// leaves them zero. sqlparse reads none of them.
var newFields = map[protoreflect.Name]bool{"arg_location": true}

// withoutNewFields clears newFields throughout a tree.
func withoutNewFields(m proto.Message) proto.Message {
	m = proto.Clone(m)
	var clear func(protoreflect.Message)
	clear = func(m protoreflect.Message) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case newFields[fd.Name()]:
				m.Clear(fd)
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len(); i++ {
					clear(v.List().Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				clear(v.Message())
			}
			return true
		})
	}
	clear(m.ProtoReflect())
	return m
}

// goStrings returns a Go file's string literals, unquoted.
func goStrings(src []byte) []string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(src)), src, nil, 0)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.STRING {
			if v, err := strconv.Unquote(lit); err == nil && v != "" {
				out = append(out, v)
			}
		}
	}
}
