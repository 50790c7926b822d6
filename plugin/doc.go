// Package plugin is the golangci-lint v2 module plugin for dsqllint.
//
// A blank import registers the linter under the name "dsqllint":
//
//	import _ "github.com/dsqllint/dsqllint/plugin"
//
// golangci-lint builds it in with `golangci-lint custom` and a
// .custom-gcl.yml naming this module (see docs/integrations.md), and
// configures it under linters.settings.custom.dsqllint:
//
//	linters:
//	  enable: [dsqllint]
//	  settings:
//	    custom:
//	      dsqllint:
//	        type: module
//	        settings:
//	          dsql-version: "2026-09"
//	          disable: [DSQL003, DSQL005]
//
// Every key of settings is one of the analyzer's flags (see
// `dsqllint -help`), spelled the same; a list value is joined with commas
// and, like the flag, replaces the default list.
// An unknown key or a bad value is an error, so a typo in .golangci.yml
// fails the run instead of silently checking with the defaults.
package plugin
