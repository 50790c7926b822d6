package main

import (
	"fmt"
	"runtime/debug"

	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// version is the release tag, set by the release build
// (-ldflags "-X main.version=v1.2.0"); go install's module version
// serves otherwise.
var version string

// versionLine says which dsqllint this is, which parser it carries and
// how new its knowledge of Aurora DSQL is: "dsqllint v0.4.0 (go1.26.8,
// parser cgo); DSQL features through 2026-09-15; default -dsql-version
// 2026-09-30".
func versionLine() string {
	v, goVersion := "(devel)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	if version != "" {
		v = version
	}
	return fmt.Sprintf("dsqllint %s (%s, parser %s); DSQL features through %s; default -dsql-version %s",
		v, goVersion, sqlparse.ParserBuild, rules.NewestFeature, rules.DefaultTarget)
}
