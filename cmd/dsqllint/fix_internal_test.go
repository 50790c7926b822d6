package main

import (
	"reflect"
	"testing"

	"golang.org/x/mod/modfile"
)

// TestOtherChanges: what go get did to go.mod besides adding the runtime
// is named, so that -fix undoes it and says so.
func TestOtherChanges(t *testing.T) {
	parse := func(src string) *modfile.File {
		f, err := modfile.Parse("go.mod", []byte(src), nil)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	before := parse("module m\n\ngo 1.22\n\nrequire github.com/jackc/pgx/v5 v5.4.3\n")
	added := map[string]bool{"github.com/dsqllint/dsqllint/runtime/occpgx": true}
	cases := []struct {
		after string
		want  []string
	}{
		{"module m\n\ngo 1.22\n\nrequire (\n\tgithub.com/dsqllint/dsqllint/runtime/occpgx v1.0.0\n\tgithub.com/jackc/pgx/v5 v5.4.3\n)\n", nil},
		{"module m\n\ngo 1.22\n\nrequire (\n\tgithub.com/dsqllint/dsqllint/runtime/occpgx v1.0.0\n\tgithub.com/jackc/pgx/v5 v5.7.0\n)\n",
			[]string{"github.com/jackc/pgx/v5 from v5.4.3 to v5.7.0"}},
		{"module m\n\ngo 1.24\n\ntoolchain go1.24.1\n\nrequire (\n\tgithub.com/dsqllint/dsqllint/runtime/occpgx v1.0.0\n\tgithub.com/jackc/pgx/v5 v5.4.3\n\tgolang.org/x/text v0.20.0 // indirect\n)\n",
			[]string{"the go line from 1.22 to 1.24", `the toolchain from "" to "go1.24.1"`, "a requirement of golang.org/x/text v0.20.0"}},
	}
	for _, c := range cases {
		if got := otherChanges(before, parse(c.after), added); !reflect.DeepEqual(got, c.want) {
			t.Errorf("otherChanges:\n%s\ngot  %q\nwant %q", c.after, got, c.want)
		}
	}
}
