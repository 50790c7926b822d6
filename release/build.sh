#!/usr/bin/env bash
# Builds dsqllint's release: cgo-free binaries (the parser runs as
# WebAssembly, so no C toolchain is needed for any target) for linux,
# darwin and windows on amd64 and arm64, each archived with the README
# (tar.gz; zip for windows), and checksums.txt (SHA-256) over the archives.
# -version prints VERSION.
#
#   release/build.sh VERSION [OUTDIR]     VERSION: the tag (v1.2.0), or v0.0.0-snapshot
#
# The release workflow (.github/workflows/release.yml) runs it on a tag and
# uploads OUTDIR; CI runs a snapshot and the linux/amd64 binary.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: release/build.sh VERSION [OUTDIR]}
out=${2:-dist}
case $version in v[0-9]*) ;; *) echo "release/build.sh: VERSION must look like v1.2.0, not $version" >&2; exit 1 ;; esac
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)

for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
	goos=${target%/*} goarch=${target#*/}
	name=dsqllint_${version#v}_${goos}_${goarch}
	exe=dsqllint
	[ "$goos" = windows ] && exe=dsqllint.exe
	mkdir -p "$out/$name"
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$out/$name/$exe" ./cmd/dsqllint
	cp README.md "$out/$name/"
	if [ "$goos" = windows ]; then
		(cd "$out" && zip -qr "$name.zip" "$name")
	else
		tar -C "$out" -czf "$out/$name.tar.gz" "$name"
	fi
	rm -rf "${out:?}/$name"
done
(cd "$out" && sha256sum -- *.tar.gz *.zip > checksums.txt)
ls -l "$out"
