package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/dsqllint/dsqllint/rules"
)

// writeGitHub prints one GitHub Actions workflow command per finding, which
// the runner turns into an annotation on the pull request's diff:
//
//	::error file=db/store.go,line=17,col=42,title=DSQL001 share-lock::DSQL001 share-lock: FOR SHARE ...
//
// ::error for error-severity rules, ::warning for warning-severity ones.
// Paths are repository-relative, as the runner requires. GitHub shows at
// most 10 annotations of each kind per step; the exit status and SARIF
// carry the rest.
func writeGitHub(w io.Writer, fs []*finding) error {
	bw := bufio.NewWriter(w)
	for _, f := range fs {
		title := f.ruleID()
		if f.rule != nil {
			title += " " + f.rule.Name
		}
		command := "warning"
		if f.severity() == rules.Error {
			command = "error"
		}
		fmt.Fprintf(bw, "::%s file=%s,line=%d,col=%d,title=%s::%s\n",
			command, escapeProperty(f.path), f.pos.Line, f.pos.Column, escapeProperty(title), escapeData(f.Message))
	}
	return bw.Flush()
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
