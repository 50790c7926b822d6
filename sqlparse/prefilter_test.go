package sqlparse

import "testing"

func TestBareUtility(t *testing.T) {
	for s, want := range map[string]bool{
		"lock held":                   true,
		"Lock Suite":                  true,
		" notify user ":               true,
		"truncate text":               true,
		"Vacuum cleaner":              true,
		"lOCK held":                   true,
		"TRUNCATE jobs":               false, // upper-case keywords are SQL
		"LISTEN jobs":                 false,
		"VACUUM jobs":                 false,
		" NOTIFY jobs ":               false,
		"LOCK held":                   false,
		"LOCK TABLE accounts":         false,
		"LOCK accounts;":              false,
		"lock":                        false,
		"update available":            false, // not a bare-name statement word
		"LOCK accounts IN SHARE MODE": false,
		"truncate \"Users\"":          false,
		"release called":              true,
		"Release dsqllint_hole":       true, // "Release " + version
		"execute failed":              true,
		"reset password":              true,
		"RELEASE sp1":                 false,
		"EXECUTE get_job":             false,
	} {
		if got := BareUtility(s); got != want {
			t.Errorf("BareUtility(%q) = %v, want %v", s, got, want)
		}
	}
}
