// Command modproxy writes the repository's modules — the linter, the
// retry runtime's three and the tests' PostgreSQL — at one version, each
// requiring the others at it (their go.mod files say v0.0.0, which only the
// repository's go.work resolves):
//
//	go run ./release/modproxy -version v1.2.0 -proxy DIR   a module proxy: GOPROXY=file://DIR serves them
//	go run ./release/modproxy -version v1.2.0 -tree        the go.mod and go.sum files of the release commit
//
// The go.sum of each module gains the hashes of the others at that version,
// computed from the zips the proxy serves (the same bytes as the tags'),
// so that go install github.com/dsqllint/dsqllint/cmd/dsqllint@v1.2.0
// verifies them.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// modules are the repository's module directories, each after those it
// requires.
var modules = []string{"internal/pgtest", "runtime", "runtime/occpgx", "runtime/occprom", "."}

func main() {
	version := flag.String("version", "", "the version to write (v1.2.0)")
	proxy := flag.String("proxy", "", "write a module proxy directory here")
	tree := flag.Bool("tree", false, "write the go.mod and go.sum files into the working tree")
	flag.Parse()
	if !semver.IsValid(*version) || (*proxy == "") == !*tree {
		log.Fatal("usage: modproxy -version vX.Y.Z (-proxy DIR | -tree)")
	}
	root, err := os.Getwd()
	if err != nil {
		log.Fatal(err)
	}
	if err := write(root, *version, *proxy, *tree); err != nil {
		log.Fatal(err)
	}
}

// write writes the modules of the repository at root at version into a
// proxy directory (when proxy is set), and their go.mod and go.sum files
// into the working tree (when tree is).
func write(root, version, proxy string, tree bool) error {
	scratch, err := os.MkdirTemp("", "modproxy")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	if proxy == "" {
		proxy = scratch // the zips are still made, for their hashes
	}
	ours := map[string]bool{}
	paths := map[string]string{} // dir → module path
	for _, dir := range modules {
		data, err := os.ReadFile(filepath.Join(root, dir, "go.mod"))
		if err != nil {
			return err
		}
		p := modfile.ModulePath(data)
		ours[p], paths[dir] = true, p
	}
	sums := map[string][2]string{} // module path → hash of its zip, of its go.mod
	for _, dir := range modules {
		path := paths[dir]
		gomod, gosum, err := release(filepath.Join(root, dir), version, ours, sums)
		if err != nil {
			return fmt.Errorf("%s: %v", dir, err)
		}
		files, err := moduleFiles(root, dir)
		if err != nil {
			return err
		}
		m := module.Version{Path: path, Version: version}
		at, err := module.EscapePath(path)
		if err != nil {
			return err
		}
		vdir := filepath.Join(proxy, filepath.FromSlash(at), "@v")
		if err := os.MkdirAll(vdir, 0o755); err != nil {
			return err
		}
		zipName := filepath.Join(vdir, version+".zip")
		var zf []modzip.File
		for _, name := range files {
			switch filepath.Base(name) {
			case "go.mod", "go.sum", "go.work", "go.work.sum":
				if filepath.Dir(name) == filepath.Join(root, dir) {
					continue // the released ones below
				}
			}
			rel, _ := filepath.Rel(filepath.Join(root, dir), name)
			zf = append(zf, diskFile{filepath.ToSlash(rel), name})
		}
		zf = append(zf, memFile{"go.mod", gomod})
		if len(gosum) > 0 {
			zf = append(zf, memFile{"go.sum", gosum})
		}
		var buf bytes.Buffer
		if err := modzip.Create(&buf, m, zf); err != nil {
			return fmt.Errorf("%s: %v", dir, err)
		}
		info, _ := json.Marshal(map[string]any{"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
		for name, data := range map[string][]byte{zipName: buf.Bytes(), filepath.Join(vdir, version+".mod"): gomod, filepath.Join(vdir, version+".info"): info} {
			if err := os.WriteFile(name, data, 0o644); err != nil {
				return err
			}
		}
		if err := appendLine(filepath.Join(vdir, "list"), version); err != nil {
			return err
		}
		hzip, err := dirhash.HashZip(zipName, dirhash.Hash1)
		if err != nil {
			return err
		}
		hmod, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(gomod)), nil })
		if err != nil {
			return err
		}
		sums[path] = [2]string{hzip, hmod}
		if tree {
			if err := os.WriteFile(filepath.Join(root, dir, "go.mod"), gomod, 0o644); err != nil {
				return err
			}
			if len(gosum) > 0 {
				if err := os.WriteFile(filepath.Join(root, dir, "go.sum"), gosum, 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// release returns the module's go.mod with its requirements on the
// repository's other modules set to version, and its go.sum with their
// hashes.
func release(dir, version string, ours map[string]bool, sums map[string][2]string) (gomod, gosum []byte, err error) {
	name := filepath.Join(dir, "go.mod")
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, nil, err
	}
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, nil, err
	}
	gosum, err = os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil && !os.IsNotExist(err) {
		return nil, nil, err
	}
	var lines []string
	for _, r := range f.Require {
		if !ours[r.Mod.Path] {
			continue
		}
		h, ok := sums[r.Mod.Path]
		if !ok {
			return nil, nil, fmt.Errorf("requires %s, which is not written before it", r.Mod.Path)
		}
		if err := f.AddRequire(r.Mod.Path, version); err != nil {
			return nil, nil, err
		}
		lines = append(lines, fmt.Sprintf("%s %s %s\n%s %s/go.mod %s\n", r.Mod.Path, version, h[0], r.Mod.Path, version, h[1]))
	}
	if gomod, err = f.Format(); err != nil {
		return nil, nil, err
	}
	return gomod, append(gosum, strings.Join(lines, "")...), nil
}

// moduleFiles lists the files of the module in dir (relative to the
// repository at root) that git tracks or would (not those it ignores),
// without those of modules nested in it.
func moduleFiles(root, dir string) ([]string, error) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", dir).Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %v", err)
	}
	var files []string
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		inNested := false
		for d := filepath.Dir(rel); d != dir && d != "." && d != "/"; d = filepath.Dir(d) {
			if exists(filepath.Join(root, d, "go.mod")) {
				inNested = true // a module below dir: another of ours, a test module
				break
			}
		}
		if !inNested && exists(filepath.Join(root, rel)) {
			files = append(files, filepath.Join(root, rel))
		}
	}
	return files, nil
}

func exists(name string) bool { _, err := os.Lstat(name); return err == nil }

func appendLine(name, line string) error {
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

type diskFile struct{ path, name string }

func (f diskFile) Path() string                 { return f.path }
func (f diskFile) Lstat() (fs.FileInfo, error)  { return os.Lstat(f.name) }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.name) }

type memFile struct {
	path string
	data []byte
}

func (f memFile) Path() string                 { return f.path }
func (f memFile) Lstat() (fs.FileInfo, error)  { return memInfo{f}, nil }
func (f memFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

type memInfo struct{ f memFile }

func (i memInfo) Name() string       { return filepath.Base(i.f.path) }
func (i memInfo) Size() int64        { return int64(len(i.f.data)) }
func (i memInfo) Mode() fs.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
