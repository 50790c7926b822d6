package txflow

import (
	"bytes"
	"encoding/gob"
	"go/token"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/dsqllint/dsqllint/fencing"
)

// Fact is the package fact that carries transaction summaries along
// imports: the package's own Summary and those of every package below it
// that has something to say, so that the drivers that run one package at
// a time (go vet, golangci-lint, nogo) judge a lock whose chain crosses
// packages where the chain is complete, as x/tools' printf pass carries
// its wrapper facts.
//
// In one process (the dsqllint command, analysistest, golangci-lint) the
// summaries travel as they are. Across processes (go vet) the fact is
// gob-encoded with the lines of the files its positions are in, and
// Summaries re-creates those files in the importer's file set, so that
// every position still names its file and line.
type Fact struct{ s *factState }

type factState struct {
	sums  []*Summary
	fset  *token.FileSet // where sums' positions are, until encoded
	files []factFile     // after decoding: the files of the encoder's set
	once  sync.Once
}

// factFile is a file of the encoder's file set, as much as the
// summaries' positions need: each position's raw value, line and column.
type factFile struct {
	Name string
	Pos  []int // the encoder's raw positions in the file, ascending
	Line []int
	Col  []int
}

// NewFact returns the fact for a package whose summaries' positions are
// in fset.
func NewFact(fset *token.FileSet, sums []*Summary) *Fact {
	return &Fact{&factState{sums: sums, fset: fset}}
}

// AFact marks Fact as an analysis fact.
func (*Fact) AFact() {}

func (f *Fact) String() string {
	if f.s == nil {
		return "txflow()"
	}
	parts := make([]string, len(f.s.sums))
	for i, s := range f.s.sums {
		parts[i] = s.String()
	}
	return "txflow(" + strings.Join(parts, "; ") + ")"
}

// Summaries returns the summaries the fact carries, their positions in
// fset (re-created there once when the fact was decoded).
func (f *Fact) Summaries(fset *token.FileSet) []*Summary {
	if f.s == nil {
		return nil
	}
	f.s.once.Do(func() {
		if f.s.files != nil {
			f.s.resolve(fset)
		}
	})
	return f.s.sums
}

// wireFact is what a Fact sends: its summaries' positions and plain data,
// and each summary's fences (Fences[i] is Sums[i]'s, nil for none). The
// write judge and the fixes stay with the package that made them: another
// process can use neither.
type wireFact struct {
	Files  []factFile
	Sums   []*Summary
	Fences []*fencing.Fences
}

// GobEncode encodes the summaries with the files their positions are in.
func (f *Fact) GobEncode() ([]byte, error) {
	w := wireFact{}
	if f.s != nil && f.s.fset == nil {
		// Decoded and not yet resolved: its positions are still the
		// encoder's, in the files it sent.
		w.Files, w.Sums = f.s.files, f.s.sums
		for _, s := range f.s.sums {
			w.Fences = append(w.Fences, s.fences)
		}
	} else if f.s != nil {
		byFile := map[*token.File]map[token.Pos]bool{}
		for _, s := range f.s.sums {
			c := *s // its fences (unexported) and funcs are not sent
			c.Begins = append([]Begin(nil), s.Begins...)
			for i := range c.Begins {
				c.Begins[i].Fix = nil
			}
			c.Types, c.Interfaces = listed(s.Types), listed(s.Interfaces)
			c.Runs = append([]LockRun(nil), s.Runs...)
			for i := range c.Runs {
				c.Runs[i].Fix = nil
			}
			walkPositions(reflect.ValueOf(&c).Elem(), func(p *token.Pos) {
				if tf := f.s.fset.File(*p); tf != nil {
					if byFile[tf] == nil {
						byFile[tf] = map[token.Pos]bool{}
					}
					byFile[tf][*p] = true
				}
			})
			w.Sums = append(w.Sums, &c)
			w.Fences = append(w.Fences, s.fences)
		}
		for tf, ps := range byFile {
			ff := factFile{Name: tf.Name()}
			for _, p := range slices.Sorted(maps.Keys(ps)) {
				pos := tf.Position(p)
				ff.Pos, ff.Line, ff.Col = append(ff.Pos, int(p)), append(ff.Line, pos.Line), append(ff.Col, pos.Column)
			}
			w.Files = append(w.Files, ff)
		}
		sort.Slice(w.Files, func(i, j int) bool { return w.Files[i].Pos[0] < w.Files[j].Pos[0] })
	}
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(w)
	return buf.Bytes(), err
}

// GobDecode decodes what GobEncode wrote; Summaries resolves it.
func (f *Fact) GobDecode(data []byte) error {
	var w wireFact
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&w); err != nil {
		return err
	}
	if w.Files == nil {
		w.Files = []factFile{}
	}
	for i, fs := range w.Fences {
		if i < len(w.Sums) {
			w.Sums[i].fences = fs
		}
	}
	f.s = &factState{sums: w.Sums, files: w.Files}
	return nil
}

// resolve adds the encoder's files to fset, each with only the lines and
// columns the summaries' positions need (as export data's files do), and
// moves every position of the summaries into them.
func (st *factState) resolve(fset *token.FileSet) {
	moved := map[token.Pos]token.Pos{}
	for _, ff := range st.files {
		lines, stride := 0, 1
		for i := range ff.Pos {
			lines, stride = max(lines, ff.Line[i]), max(stride, ff.Col[i]+1)
		}
		tf := fset.AddFile(ff.Name, -1, lines*stride)
		starts := make([]int, lines)
		for i := range starts {
			starts[i] = i * stride
		}
		tf.SetLines(starts)
		for i, p := range ff.Pos {
			moved[token.Pos(p)] = tf.Pos((ff.Line[i]-1)*stride + max(ff.Col[i]-1, 0))
		}
	}
	for _, s := range st.sums {
		walkPositions(reflect.ValueOf(s).Elem(), func(p *token.Pos) { *p = moved[*p] })
	}
	st.fset, st.files = fset, nil
}

// listed returns the method sets with their methods listed.
func listed(sets []MethodSet) []MethodSet {
	out := make([]MethodSet, len(sets))
	for i, m := range sets {
		out[i] = MethodSet{Names: m.Names, List: m.methods()}
	}
	return out
}

var posType = reflect.TypeOf(token.NoPos)

// walkPositions calls at for every non-zero token.Pos held in v, through
// structs and slices (pointers and funcs are not followed: a Summary's
// are its fences, fixes and closures, which do not travel).
func walkPositions(v reflect.Value, at func(*token.Pos)) {
	switch v.Kind() {
	case reflect.Int:
		if v.Type() == posType && v.Int() != 0 && v.CanAddr() {
			at(v.Addr().Interface().(*token.Pos))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walkPositions(v.Field(i), at)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String {
			return
		}
		for i := range v.Len() {
			walkPositions(v.Index(i), at)
		}
	}
}
