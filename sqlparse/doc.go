// Package sqlparse turns SQL text found in Go code or .sql files into a
// small statement model that dsqllint's rules read.
//
// It is the only package that imports pg_query_go, so the parser can be
// swapped in one place: with cgo, pg_query_go's libpg_query; without
// (CGO_ENABLED=0), the same library compiled to WebAssembly (go-pgquery,
// parser_nocgo.go), which returns the same tree. Work is layered so that most strings cost almost
// nothing: [LooksLikeSQL] is a cheap prefilter; [Parse] lexes the text,
// normalises driver placeholders (?, :name, @name, printf verbs) and Go
// text/template actions to PostgreSQL syntax while keeping an offset map
// back to the source, splits statements, and models each one (cached by
// content). The shapes most
// persistence code writes (plain reads and inserts, fenced UPDATE and
// DELETE, one-table locking reads) are modelled from their tokens, a tenth
// of the cost; every other statement is parsed with pg_query, and the two
// paths must give the same model (tokenmodel_test.go). When a statement
// does not parse, a token scan still recognises the few things the rules
// need (MySQL LOCK IN SHARE MODE, bare locking-clause fragments).
//
// Every offset in the model is a byte offset into the text given to Parse.
package sqlparse
