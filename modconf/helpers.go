package modconf

import (
	"bytes"
	"go/build"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
)

// Library reports a package whose summary no package joins: one of the
// standard library, or one of the module cache (or a vendor directory)
// that never checks for a serialization failure. go vet runs the
// analyzer on every dependency for its facts; a library's retry helper is
// the one thing of a library that decides a verdict in the module
// (Helper).
func Library(pass *analysis.Pass) bool {
	if pass.Module != nil && (pass.Module.Path == "std" || pass.Module.Path == "cmd") {
		return true
	}
	names := make([]string, 0, len(pass.Files))
	for _, f := range pass.Files {
		names = append(names, pass.Fset.File(f.Pos()).Name())
	}
	if len(names) > 0 && standard(filepath.Dir(names[0])) {
		// go vet before Go 1.27 names no module for the standard
		// library, whose directory is no module cache either.
		return true
	}
	return len(names) > 0 && !inRepository(filepath.Dir(names[0])) && !Helper(names, true)
}

// standard reports a directory of the standard library.
func standard(dir string) bool {
	goroot := build.Default.GOROOT
	return goroot != "" && within(filepath.Join(goroot, "src"), dir)
}

// Helper reports whether a package outside the packages linted, with Go
// files names, that a linted package imports (imported), is one whose
// summary joins theirs: one whose source checks for a serialization
// failure — a company's retry helper in the module cache or a vendor
// directory, or in the repository (a module a replace directive or
// go.work points at, a package of the module not named on the command
// line), where a predicate named for it (isRetryable) counts too. The
// dsqllint command loads these packages from source, go vet analyses
// them for their facts. Reading the repository's other packages whole
// would cost a subtree's run (./store/...) the rest of the module: on
// Temporal's persistence tree, three times the do-nothing analyzer.
func Helper(names []string, imported bool) bool {
	if len(names) == 0 || !imported {
		return false
	}
	dir := filepath.Dir(names[0])
	if standard(dir) {
		return false
	}
	repo := inRepository(dir)
	checks := false
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if bytes.Contains(data, []byte(`"database/sql/driver"`)) {
			return false // a driver: its table of SQLSTATEs names 40001, it retries nothing of ours
		}
		// The repository's own packages may also leave the check to a
		// predicate named for it (isRetryable), as its retry loops do.
		checks = checks || checksConflictText(data) || repo && declaresRetryPredicate(data)
	}
	return checks
}

// HelperCall reports a function of a helper package (Helper) whose call
// can decide a verdict in the caller: one handed a function or an
// operation to run (a retry loop, a transaction helper), or an error
// predicate (isRetryable(err) bool).
func HelperCall(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return false
	}
	takesErr := false
	for v := range sig.Params().Variables() {
		switch t := v.Type().Underlying().(type) {
		case *types.Signature:
			return true
		case *types.Interface:
			if types.Identical(v.Type(), errorType) {
				takesErr = true
			} else if t.NumMethods() > 0 && !isContext(v.Type()) {
				return true
			}
		}
	}
	return takesErr && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.Bool])
}

var errorType = types.Universe.Lookup("error").Type()

func isContext(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

// inRepository reports a directory of the repository being linted: not
// the module cache, a module version or a vendor directory.
func inRepository(dir string) bool {
	return !within(modCache(), dir) && !versioned(dir) && !strings.Contains(filepath.ToSlash(dir), "/vendor/")
}

// checksConflictText reports library source that may check for a
// serialization failure: SQLSTATE 40001 spelled as a string, by its
// condition name, or as its class (40) beside an SQLSTATE. Plain
// "serialization error"s are a codec's, and a 40001 in a table of numbers
// is no SQLSTATE. PostgreSQL's message text ("could not serialize
// access") is none either: Aurora DSQL's 40001 does not carry it (DSQL012).
//
// Byte searches, one pass per word, its spellings told apart where it is
// found: a library package's files are read whole, and can be many (an
// Elasticsearch client's 291 on Temporal's persistence tree).
func checksConflictText(src []byte) bool {
	for rest := src; ; {
		i := bytes.Index(rest, []byte("40001"))
		if i < 0 {
			break
		}
		if i > 0 && i+5 < len(rest) && (rest[i-1] == '"' || rest[i-1] == '`') && rest[i+5] == rest[i-1] {
			return true // "40001", `40001`
		}
		rest = rest[i+5:]
	}
	for rest := src; ; {
		i := bytes.Index(rest, []byte("erialization"))
		if i < 0 {
			break
		}
		rest = rest[i+len("erialization"):]
		if bytes.HasPrefix(rest, []byte("Failure")) || bytes.HasPrefix(rest, []byte("_failure")) {
			return true // SerializationFailure, serialization_failure
		}
	}
	return bytes.Contains(src, []byte("SQLState")) && bytes.Contains(src, []byte(`"40"`))
}

// declaresRetryPredicate reports source that declares an error predicate
// named for retrying — func isRetryable(err error) bool, or the type
// IsRetryable func(error) bool a retry loop takes — outside generated
// code. The word alone is no evidence: log tags, metric names, settings
// and generated enums spell it too (on Temporal's persistence tree they
// made eight of ten packages joined).
func declaresRetryPredicate(src []byte) bool {
	if bytes.HasPrefix(src, []byte("// Code generated")) || bytes.Contains(src, []byte("\n// Code generated")) {
		return false
	}
	for rest := src; ; {
		i := bytes.Index(rest, []byte("etryable"))
		if i < 0 {
			return false
		}
		start := bytes.LastIndexByte(rest[:i], '\n') + 1
		end := bytes.IndexByte(rest[i:], '\n')
		if end < 0 {
			end = len(rest) - i
		}
		if retryPredicate.Match(rest[start : i+end]) {
			return true
		}
		rest = rest[i+end:]
	}
}

// retryPredicate matches the line declaring one: a function or method
// whose name says retryable, taking an error and returning bool, or a
// function type so named (in a type block too).
var retryPredicate = regexp.MustCompile(`^(func (\([^)]*\) )?\w*[Rr]etryable\w*\(\w* ?error\) bool|\s*(type )?\w*[Rr]etryable\w* func\(\w* ?error\) bool)`)

func within(dir, name string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, name)
	return err == nil && filepath.IsLocal(rel)
}

// versioned reports a directory of an extracted module version
// (…/pq@v1.10.9/…): the module cache, wherever `go env -w GOMODCACHE`
// put it.
func versioned(dir string) bool {
	for _, elem := range strings.Split(filepath.ToSlash(dir), "/") {
		if _, v, ok := strings.Cut(elem, "@v"); ok && v != "" && v[0] >= '0' && v[0] <= '9' {
			return true
		}
	}
	return false
}

// modCache is the module cache's directory.
var modCache = sync.OnceValue(func() string {
	if cache := os.Getenv("GOMODCACHE"); cache != "" {
		return cache
	}
	if gopath := filepath.SplitList(build.Default.GOPATH); len(gopath) > 0 && gopath[0] != "" {
		return filepath.Join(gopath[0], "pkg", "mod")
	}
	return ""
})
