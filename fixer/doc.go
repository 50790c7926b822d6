// Package fixer turns a rule's edit of SQL text into analysis.SuggestedFix
// text edits on the real source: a Go string literal (raw or interpreted,
// with its escapes), one piece of a constant concatenation, a Sprintf
// format, or a .sql file. An edit is made only when it lands exactly inside
// one literal; otherwise the finding is reported without a fix.
package fixer
