package main

import (
	"bytes"
	"go/ast"
	"go/build"
	"go/token"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// prefetch parses the Go files of the directories a run names while `go
// list` works out which packages they hold. That wait is a core left idle
// (on the synthetic 300x60 module go list takes 0.2 s of wall time and
// about as much CPU), and parsing is a tenth of the load's CPU. A file is
// served from the prefetch only when go/packages hands the parser the
// bytes the prefetch parsed (the same length and 64-bit hash); anything
// else is parsed as it comes.
type prefetch struct {
	fset    *token.FileSet
	files   map[string]*prefetched // by absolute file name, complete once listed is closed
	listed  chan struct{}
	stop    atomic.Bool
	stopped sync.WaitGroup
}

type prefetched struct {
	once sync.Once
	file *ast.File
	err  error
	// What file was parsed from, by length and hash: the bytes are not
	// kept, lest a prefetch far ahead of the loader hold a large tree's
	// source.
	size  int
	sum   uint64
	mu    sync.Mutex
	taken bool
}

var prefetchSeed = maphash.MakeSeed()

// parse parses src as the file's, once: whichever of the prefetch and
// the loader comes first.
func (p *prefetched) parse(fset *token.FileSet, name string, src []byte) {
	p.once.Do(func() {
		p.file, p.err = parseSource(fset, name, src)
		p.size, p.sum = len(src), maphash.Bytes(prefetchSeed, src)
	})
}

// take reports whether file was parsed from src, and hands it over: the
// loader asks for each file once, and no two packages share a syntax
// tree.
func (p *prefetched) take(src []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.taken || p.size != len(src) || p.sum != maphash.Bytes(prefetchSeed, src) {
		return false
	}
	p.taken = true
	return true
}

// startPrefetch lists the files of the directory patterns (".",
// "./dir", "./dir/...") that `go build` would compile under tags, with
// test files when tests is set, and parses them, on a goroutine of its
// own. Other patterns (import paths, std) are left to the loader.
func startPrefetch(fset *token.FileSet, patterns []string, tests bool, tags string) *prefetch {
	p := &prefetch{fset: fset, files: map[string]*prefetched{}, listed: make(chan struct{})}
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		names := p.list(patterns, tests)
		close(p.listed)
		ctxt := build.Default
		if tags != "" {
			ctxt.BuildTags = strings.FieldsFunc(tags, func(r rune) bool { return r == ',' || r == ' ' })
		}
		for _, name := range names {
			if p.stop.Load() {
				return
			}
			src, err := os.ReadFile(name)
			if err != nil {
				continue
			}
			ctxt.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil }
			if ok, err := ctxt.MatchFile(filepath.Split(name)); err == nil && ok {
				p.files[name].parse(fset, name, src)
			}
		}
	}()
	return p
}

// list registers the Go files of the patterns' directories, in order.
func (p *prefetch) list(patterns []string, tests bool) []string {
	var names []string
	add := func(dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || !tests && strings.HasSuffix(name, "_test.go") {
				continue
			}
			full := filepath.Join(dir, name)
			if _, seen := p.files[full]; !seen {
				p.files[full] = &prefetched{}
				names = append(names, full)
			}
		}
	}
	for _, pat := range patterns {
		dir, tree, ok := dirPattern(pat)
		if !ok {
			continue
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			continue
		}
		if !tree {
			add(abs)
			continue
		}
		// What ./... matches in module mode: not testdata, vendor, or
		// directories starting with . or _, nor another module's tree.
		filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if path != abs {
				name := d.Name()
				if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
					return filepath.SkipDir
				}
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			add(path)
			return nil
		})
	}
	return names
}

// parseFile is the loader's parser: the prefetched file when it was
// parsed from these bytes, else a parse of them.
func (p *prefetch) parseFile(fset *token.FileSet, name string, src []byte) (*ast.File, error) {
	<-p.listed
	if f := p.files[name]; f != nil && fset == p.fset {
		f.parse(fset, name, src)
		if f.take(src) {
			return f.file, f.err
		}
	}
	return parseSource(fset, name, src)
}

// done ends the prefetch once the loader has parsed what it needs (it
// parses each file once): what was not asked for is dropped.
func (p *prefetch) done() {
	p.stop.Store(true)
	p.stopped.Wait()
	p.files = nil
}
