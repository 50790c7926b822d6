// Package sqlparse turns SQL text found in Go code or .sql files into a
// small statement model that dsqllint's rules read.
//
// It is the only package that imports pg_query_go, so the parser can be
// swapped in one place. Work is layered so that most strings cost almost
// nothing: [LooksLikeSQL] is a cheap prefilter; [Parse] lexes the text,
// normalises driver placeholders (?, :name, @name, printf verbs) to
// PostgreSQL syntax while keeping an offset map back to the source, splits
// statements, and parses each one with pg_query (cached by content). When a
// statement does not parse, a token scan still recognises the few things
// the rules need (MySQL LOCK IN SHARE MODE, bare locking-clause fragments).
//
// Every offset in the model is a byte offset into the text given to Parse.
package sqlparse
