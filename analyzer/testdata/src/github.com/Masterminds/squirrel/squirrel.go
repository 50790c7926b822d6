// Package squirrel is a stub of github.com/Masterminds/squirrel for tests.
package squirrel

import "database/sql"

type BaseRunner interface {
	Exec(query string, args ...interface{}) (sql.Result, error)
	Query(query string, args ...interface{}) (*sql.Rows, error)
}

type RowScanner interface{ Scan(...interface{}) error }

type PlaceholderFormat interface{}

var Dollar PlaceholderFormat

type Eq map[string]interface{}
type NotEq map[string]interface{}
type Lt map[string]interface{}
type Gt map[string]interface{}
type LtOrEq map[string]interface{}
type GtOrEq map[string]interface{}
type And []Sqlizer
type Or []Sqlizer

type Sqlizer interface {
	ToSql() (string, []interface{}, error)
}

func (Eq) ToSql() (string, []interface{}, error)     { return "", nil, nil }
func (NotEq) ToSql() (string, []interface{}, error)  { return "", nil, nil }
func (Lt) ToSql() (string, []interface{}, error)     { return "", nil, nil }
func (Gt) ToSql() (string, []interface{}, error)     { return "", nil, nil }
func (LtOrEq) ToSql() (string, []interface{}, error) { return "", nil, nil }
func (GtOrEq) ToSql() (string, []interface{}, error) { return "", nil, nil }
func (And) ToSql() (string, []interface{}, error)    { return "", nil, nil }
func (Or) ToSql() (string, []interface{}, error)     { return "", nil, nil }

type expr struct{}

func (expr) ToSql() (string, []interface{}, error) { return "", nil, nil }

func Expr(sql string, args ...interface{}) Sqlizer { return expr{} }

type StatementBuilderType struct{}

var StatementBuilder StatementBuilderType

func (b StatementBuilderType) PlaceholderFormat(f PlaceholderFormat) StatementBuilderType { return b }
func (b StatementBuilderType) Select(columns ...string) SelectBuilder                      { return SelectBuilder{} }
func (b StatementBuilderType) Update(table string) UpdateBuilder                           { return UpdateBuilder{} }
func (b StatementBuilderType) Delete(from string) DeleteBuilder                            { return DeleteBuilder{} }

type SelectBuilder struct{}

func Select(columns ...string) SelectBuilder                                      { return SelectBuilder{} }
func (b SelectBuilder) From(from string) SelectBuilder                            { return b }
func (b SelectBuilder) Join(join string, rest ...interface{}) SelectBuilder       { return b }
func (b SelectBuilder) Where(pred interface{}, args ...interface{}) SelectBuilder { return b }
func (b SelectBuilder) OrderBy(orderBys ...string) SelectBuilder                  { return b }
func (b SelectBuilder) Limit(limit uint64) SelectBuilder                          { return b }
func (b SelectBuilder) Suffix(sql string, args ...interface{}) SelectBuilder      { return b }
func (b SelectBuilder) RunWith(runner BaseRunner) SelectBuilder                   { return b }
func (b SelectBuilder) PlaceholderFormat(f PlaceholderFormat) SelectBuilder       { return b }
func (b SelectBuilder) Exec() (sql.Result, error)                                 { return nil, nil }
func (b SelectBuilder) QueryRow() RowScanner                                      { return nil }
func (b SelectBuilder) ToSql() (string, []interface{}, error)                     { return "", nil, nil }

type UpdateBuilder struct{}

func Update(table string) UpdateBuilder                                           { return UpdateBuilder{} }
func (b UpdateBuilder) Set(column string, value interface{}) UpdateBuilder        { return b }
func (b UpdateBuilder) SetMap(clauses map[string]interface{}) UpdateBuilder       { return b }
func (b UpdateBuilder) Where(pred interface{}, args ...interface{}) UpdateBuilder { return b }
func (b UpdateBuilder) Suffix(sql string, args ...interface{}) UpdateBuilder      { return b }
func (b UpdateBuilder) RunWith(runner BaseRunner) UpdateBuilder                   { return b }
func (b UpdateBuilder) Exec() (sql.Result, error)                                 { return nil, nil }
func (b UpdateBuilder) QueryRow() RowScanner                                      { return nil }
func (b UpdateBuilder) ToSql() (string, []interface{}, error)                     { return "", nil, nil }

type DeleteBuilder struct{}

func Delete(from string) DeleteBuilder                                            { return DeleteBuilder{} }
func (b DeleteBuilder) Where(pred interface{}, args ...interface{}) DeleteBuilder { return b }
func (b DeleteBuilder) RunWith(runner BaseRunner) DeleteBuilder                   { return b }
func (b DeleteBuilder) Exec() (sql.Result, error)                                 { return nil, nil }
func (b DeleteBuilder) ToSql() (string, []interface{}, error)                     { return "", nil, nil }
