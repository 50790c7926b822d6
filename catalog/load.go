package catalog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// Load replays files, in the order given, into a new catalog. Positions
// name each file relative to root (when it lies below root). A file that
// cannot be read is an error; a statement that does not parse, or DDL the
// model does not understand, is skipped.
//
// Every package of a run waits for its module's schema, so the files are
// read and parsed on all CPUs; the changes are then applied in order.
func Load(root string, files []string) (*Catalog, error) {
	parsed := make([][]parsedPiece, len(files))
	errs := make([]error, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(files)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(files); i = int(next.Add(1)) - 1 {
				data, err := os.ReadFile(files[i])
				if err != nil {
					errs[i] = fmt.Errorf("schema: %w", err)
					continue
				}
				parsed[i] = parsePieces(UpPart(string(data)))
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	c := New()
	for i, f := range files {
		name := f
		if rel, err := filepath.Rel(root, f); err == nil && !strings.HasPrefix(rel, "..") {
			name = filepath.ToSlash(rel)
		}
		c.Files = append(c.Files, name)
		for _, p := range parsed[i] {
			c.applyAt(name, p.script, p.line)
		}
	}
	return c, nil
}

// parsedPiece is a parsed piece of a file and the line it starts at.
type parsedPiece struct {
	script *sqlparse.Script
	line   int
}

// parsePieces parses a file's text. A text over sqlparse's size limit (a
// large pg_dump) is parsed in pieces cut after statements.
func parsePieces(text string) []parsedPiece {
	var out []parsedPiece
	line := 1
	for len(text) > 0 {
		piece := text
		if len(piece) > sqlparse.MaxBytes {
			piece = text[:cutBefore(text, sqlparse.MaxBytes)]
		}
		out = append(out, parsedPiece{sqlparse.Parse(piece), line})
		line += strings.Count(piece, "\n")
		text = text[len(piece):]
	}
	return out
}

// replay parses a file's text and applies it.
func (c *Catalog) replay(name, text string) {
	for _, p := range parsePieces(text) {
		c.applyAt(name, p.script, p.line)
	}
}

// cutBefore returns the end of the last statement (just after its ';')
// that ends before limit, or limit when there is none.
func cutBefore(text string, limit int) int {
	cut := 0
	for _, t := range sqlparse.Lex(text[:limit]) {
		if t.Kind == sqlparse.TokPunct && text[t.Start] == ';' && t.End < limit {
			cut = t.End
		}
	}
	if cut == 0 {
		return limit
	}
	return cut
}

// downMarker matches the line that starts a migration's "down" part:
// goose's `-- +goose Down`, sql-migrate's `-- +migrate Down`, dbmate's
// `-- migrate:down` and tern's `---- create above / drop below ----`.
var downMarker = regexp.MustCompile(`(?mi)^[ \t]*--[ \t]*(\+goose[ \t]+down|\+migrate[ \t]+down|migrate:down|-*[ \t]*create above / drop below)\b`)

// upMarker matches the line that starts an "up" part again.
var upMarker = regexp.MustCompile(`(?mi)^[ \t]*--[ \t]*(\+goose[ \t]+up|\+migrate[ \t]+up|migrate:up)\b`)

// UpPart returns a migration's text with its "down" parts blanked out
// (line breaks kept, so line numbers hold): what applying it does.
func UpPart(text string) string {
	loc := downMarker.FindStringIndex(text)
	if loc == nil {
		return text
	}
	b := []byte(text)
	for loc != nil {
		start := loc[0]
		end := len(text)
		if up := upMarker.FindStringIndex(text[loc[1]:]); up != nil {
			end = loc[1] + up[0]
		}
		for i := start; i < end; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
		if end == len(text) {
			break
		}
		loc = downMarker.FindStringIndex(text[end:])
		if loc != nil {
			loc[0], loc[1] = loc[0]+end, loc[1]+end
		}
	}
	return string(b)
}

// IsDown reports whether a file holds only a migration's "down" part:
// golang-migrate's NAME.down.sql, diesel's down.sql, Flyway's undo
// migrations U1__name.sql.
func IsDown(name string) bool {
	base := strings.ToLower(filepath.Base(name))
	switch {
	case base == "down.sql", strings.HasSuffix(base, ".down.sql"), strings.HasSuffix(base, "_down.sql"), strings.HasSuffix(base, "-down.sql"):
		return true
	case len(base) > 1 && base[0] == 'u' && base[1] >= '0' && base[1] <= '9' && strings.Contains(base, "__"):
		return true
	}
	return false
}

// Order sorts migration files as their tools apply them: by path, with
// runs of digits compared as numbers, so that 2_b.up.sql comes before
// 10_a.up.sql (golang-migrate), v1.9/ before v1.10/, and fixed-width goose,
// dbmate and atlas versions in their natural order.
func Order(files []string) {
	sort.SliceStable(files, func(i, j int) bool { return naturalLess(files[i], files[j]) })
}

func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
