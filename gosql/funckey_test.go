package gosql

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
)

// funcKey must name a function exactly as types.Func.FullName does: the
// module stage joins keys made in different packages.
func TestFuncKeyIsFullName(t *testing.T) {
	const src = `package p
type T struct{}
func (T) V() {}
func (*T) P() {}
type G[K any] struct{}
func (*G[K]) M() {}
type I interface{ N() }
func F() {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("example.com/p", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, obj := range info.Defs {
		if fn, ok := obj.(*types.Func); ok {
			n++
			if got, want := FuncKey(fn), fn.FullName(); got != want {
				t.Errorf("funcKey = %q, want %q", got, want)
			}
		}
	}
	if n != 5 {
		t.Errorf("checked %d functions of %s, want 5", n, pkg.Path())
	}
}
