package txflow

import (
	"bytes"
	"encoding/gob"
	"errors"
	"go/token"
	"maps"
	"path"
	"reflect"
	"slices"
	"sort"
	"strconv"
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
// summaries travel as they are. Across processes (go vet) each summary is
// gob-encoded on its own with the lines of the files its positions are
// in. An importer decodes only the summaries it reads, once each however
// many of its imports carry them, and re-creates their files in its file
// set (Carried.Summary); the summaries it carries on are sent as they
// came. A dependency that go vet runs only for its facts reads none.
type Fact struct{ carried []*Carried }

// Carried is one package's summary in a Fact: as made, or, from another
// process, still encoded until a package reads it.
type Carried struct {
	Pkg, Module string
	once        sync.Once
	sum         *Summary
	fset        *token.FileSet // where sum's positions are, when made here (data nil)
	data        []byte         // the encoded wireSum, when it came encoded
	// live are, when it came encoded, the summary's functions through
	// which a chain the join follows can pass (prune), one per line.
	live string
}

// Carry returns s, whose positions are in fset, for a Fact.
func Carry(fset *token.FileSet, s *Summary) *Carried {
	return &Carried{Pkg: s.Pkg, Module: s.Module, sum: s, fset: fset}
}

// Summary returns the summary, its positions in fset (re-created there
// once when it came encoded). It returns nil for a summary that cannot be
// decoded.
func (c *Carried) Summary(fset *token.FileSet) *Summary {
	c.once.Do(func() {
		if c.sum != nil {
			return
		}
		w, err := decodeSummary(c.data)
		if err != nil {
			return
		}
		w.Sum.fences = w.Fences
		w.Sum.resolve(fset, w.Files)
		c.sum = w.Sum
	})
	return c.sum
}

// factFile is a file of the encoder's file set, as much as the
// summaries' positions need: each position's raw value, line and column.
type factFile struct {
	Name string
	Pos  []int // the encoder's raw positions in the file, ascending
	Line []int
	Col  []int
}

// NewFact returns the fact that carries the summaries.
func NewFact(carried []*Carried) *Fact { return &Fact{carried} }

// AFact marks Fact as an analysis fact.
func (*Fact) AFact() {}

func (f *Fact) String() string {
	parts := make([]string, len(f.carried))
	for i, c := range f.carried {
		parts[i] = path.Base(c.Pkg) + "{?}"
		if c.sum != nil {
			parts[i] = c.sum.String()
		} else if w, err := decodeSummary(c.data); err == nil {
			parts[i] = w.Sum.String() // its positions are the encoder's: String reads none
		}
	}
	return "txflow(" + strings.Join(parts, "; ") + ")"
}

// Carried returns the summaries the fact carries.
func (f *Fact) Carried() []*Carried { return f.carried }

// wireFact is what a Fact sends: each summary encoded on its own.
type wireFact struct{ Sums []wireCarried }

type wireCarried struct {
	Pkg, Module string
	Live        string
	Data        []byte
}

// wireSum is one summary as sent: its positions and plain data, the
// files they are in, and its fences. The write judge and the fixes stay
// with the package that made them: another process can use neither.
type wireSum struct {
	Files  []factFile
	Sum    *Summary
	Fences *fencing.Fences
}

// GobEncode encodes the summaries made in this process, without what
// leads nowhere (prune); those that came encoded are sent as they came.
func (f *Fact) GobEncode() ([]byte, error) {
	var made []*Summary
	var below map[string]bool
	for _, c := range f.carried {
		if c.data == nil {
			made = append(made, c.sum)
		}
	}
	alive, reaches := live(made, func(k string) bool {
		if below == nil {
			below = map[string]bool{}
			for _, c := range f.carried {
				if c.data != nil {
					for fn := range strings.Lines(c.live) {
						below[strings.TrimSuffix(fn, "\n")] = true
					}
				}
			}
		}
		return below[k]
	})
	w := wireFact{Sums: make([]wireCarried, 0, len(f.carried))}
	for _, c := range f.carried {
		data, fns := c.data, c.live
		if data == nil {
			var err error
			if data, err = encodeSummary(c.fset, prune(c.sum, reaches)); err != nil {
				return nil, err
			}
			fns = strings.Join(ownAlive(c.sum, alive), "\n")
		}
		w.Sums = append(w.Sums, wireCarried{c.Pkg, c.Module, fns, data})
	}
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(w)
	return buf.Bytes(), err
}

// encodeSummary encodes s, whose positions are in fset, with the files
// its positions are in.
func encodeSummary(fset *token.FileSet, s *Summary) ([]byte, error) {
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
	byFile := map[*token.File]map[token.Pos]bool{}
	add := func(p token.Pos) {
		if tf := fset.File(p); tf != nil {
			if byFile[tf] == nil {
				byFile[tf] = map[token.Pos]bool{}
			}
			byFile[tf][p] = true
		}
	}
	walk(reflect.ValueOf(&c).Elem(), func(p *token.Pos) { add(*p) }, func(k *string) {
		if p, _, ok := litKey(*k); ok {
			add(p)
		}
	})
	w := wireSum{Sum: &c, Fences: s.fences}
	for tf, ps := range byFile {
		ff := factFile{Name: tf.Name()}
		for _, p := range slices.Sorted(maps.Keys(ps)) {
			pos := tf.Position(p)
			ff.Pos, ff.Line, ff.Col = append(ff.Pos, int(p)), append(ff.Line, pos.Line), append(ff.Col, pos.Column)
		}
		w.Files = append(w.Files, ff)
	}
	sort.Slice(w.Files, func(i, j int) bool { return w.Files[i].Pos[0] < w.Files[j].Pos[0] })
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(w)
	return buf.Bytes(), err
}

// decodeSummary decodes what encodeSummary wrote.
func decodeSummary(data []byte) (wireSum, error) {
	var w wireSum
	err := gob.NewDecoder(bytes.NewReader(data)).Decode(&w)
	if err == nil && w.Sum == nil {
		err = errors.New("no summary")
	}
	return w, err
}

// GobDecode keeps each summary encoded: Carried.Summary decodes it.
func (f *Fact) GobDecode(data []byte) error {
	var w wireFact
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&w); err != nil {
		return err
	}
	f.carried = make([]*Carried, len(w.Sums))
	for i, c := range w.Sums {
		f.carried[i] = &Carried{Pkg: c.Pkg, Module: c.Module, data: c.Data, live: c.Live}
	}
	return nil
}

// resolve adds the encoder's files to fset, each with only the lines and
// columns the summary's positions need (as export data's files do), and
// moves every position of the summary into them.
func (s *Summary) resolve(fset *token.FileSet, files []factFile) {
	moved := map[token.Pos]token.Pos{}
	for _, ff := range files {
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
	// A function literal is named by its position in the file set that
	// made the summary: every package's process numbers from 1, so the
	// same name would mean two closures of two packages here.
	walk(reflect.ValueOf(s).Elem(), func(p *token.Pos) { *p = moved[*p] }, func(k *string) {
		if p, rest, ok := litKey(*k); ok && moved[p].IsValid() {
			*k = "func@" + strconv.Itoa(int(moved[p])) + rest
		}
	})
}

// litKey splits the name of a function literal ("func@123", or with a
// parameter "func@123#0", gosql.LitKey and ParamKey) into its position
// and the rest.
func litKey(k string) (token.Pos, string, bool) {
	n, ok := strings.CutPrefix(k, "func@")
	if !ok {
		return 0, "", false
	}
	digits, rest := n, ""
	if i := strings.IndexByte(n, '#'); i >= 0 {
		digits, rest = n[:i], n[i:]
	}
	p, err := strconv.Atoi(digits)
	return token.Pos(p), rest, err == nil && p > 0
}

// listed returns the method sets with their methods listed.
func listed(sets []MethodSet) []MethodSet {
	out := make([]MethodSet, len(sets))
	for i, m := range sets {
		out[i] = MethodSet{Names: m.Names, List: m.methods()}
	}
	return out
}

var (
	posType    = reflect.TypeOf(token.NoPos)
	stringType = reflect.TypeOf("")
)

// walk calls pos for every non-zero token.Pos held in v, and key for
// every string that names a function literal (litKey), through structs
// and slices (pointers and funcs are not followed: a Summary's are its
// fences, fixes and closures, which do not travel).
func walk(v reflect.Value, pos func(*token.Pos), key func(*string)) {
	switch v.Kind() {
	case reflect.Int:
		if v.Type() == posType && v.Int() != 0 && v.CanAddr() {
			pos(v.Addr().Interface().(*token.Pos))
		}
	case reflect.String:
		if v.Type() == stringType && v.CanAddr() && strings.HasPrefix(v.String(), "func@") {
			key(v.Addr().Interface().(*string))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walk(v.Field(i), pos, key)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			walk(v.Index(i), pos, key)
		}
	}
}
