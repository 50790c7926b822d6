// Package squirrel is a stub of github.com/Masterminds/squirrel for tests.
package squirrel

type Sqlizer interface {
	ToSql() (string, []any, error)
}

type Eq map[string]any

func (Eq) ToSql() (string, []any, error) { return "", nil, nil }

type expr struct{}

func (expr) ToSql() (string, []any, error) { return "", nil, nil }

func Expr(sql string, args ...any) Sqlizer { return expr{} }

type SelectBuilder struct{}

func Select(columns ...string) SelectBuilder                   { return SelectBuilder{} }
func (b SelectBuilder) From(from string) SelectBuilder         { return b }
func (b SelectBuilder) Where(pred any, args ...any) SelectBuilder { return b }
func (b SelectBuilder) Suffix(sql string, args ...any) SelectBuilder { return b }
func (b SelectBuilder) ToSql() (string, []any, error)          { return "", nil, nil }
