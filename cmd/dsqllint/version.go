package main

import (
	"fmt"
	"runtime/debug"

	"github.com/dsqllint/dsqllint/rules"
)

// versionLine says which dsqllint this is and how new its knowledge of
// Aurora DSQL is: "dsqllint v0.4.0 (go1.26.8); DSQL features through
// 2026-09-15; default -dsql-version 2026-09-30".
func versionLine() string {
	version, goVersion := "(devel)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		if v := bi.Main.Version; v != "" {
			version = v
		}
	}
	return fmt.Sprintf("dsqllint %s (%s); DSQL features through %s; default -dsql-version %s",
		version, goVersion, rules.NewestFeature, rules.DefaultTarget)
}
