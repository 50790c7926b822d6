#!/usr/bin/env bash
# The action's install step: the release binary for this runner, checked
# against the release's checksums, or go install when there is none.
#
# INPUT_VERSION: v1.2.0 or latest. DSQLLINT_DOWNLOAD_BASE: where releases
# are (https://github.com/dsqllint/dsqllint/releases/download; a file://
# directory in tests). Puts dsqllint on GITHUB_PATH.
set -euo pipefail
version=${INPUT_VERSION:-latest}
base=${DSQLLINT_DOWNLOAD_BASE:-https://github.com/dsqllint/dsqllint/releases/download}
dest=${RUNNER_TEMP:-/tmp}/dsqllint-bin
mkdir -p "$dest"

if [ "$version" = latest ]; then
	version=$(curl -fsSL https://api.github.com/repos/dsqllint/dsqllint/releases/latest 2>/dev/null |
		sed -n 's/.*"tag_name": *"\([^"]*\)".*/\1/p' | head -1) || true
fi

case ${RUNNER_OS:-$(uname -s)} in
Linux) os=linux ;; macOS | Darwin) os=darwin ;; Windows | MINGW* | MSYS*) os=windows ;; *) os=unknown ;;
esac
case ${RUNNER_ARCH:-$(uname -m)} in
X64 | x86_64 | amd64) arch=amd64 ;; ARM64 | arm64 | aarch64) arch=arm64 ;; *) arch=unknown ;;
esac

download() {
	[ -n "$version" ] && [ "$os" != unknown ] && [ "$arch" != unknown ] || return 1
	local name=dsqllint_${version#v}_${os}_${arch} ext=tar.gz exe=dsqllint tmp
	[ "$os" = windows ] && ext=zip exe=dsqllint.exe
	tmp=$(mktemp -d)
	curl -fsSL -o "$tmp/$name.$ext" "$base/$version/$name.$ext" || return 1
	curl -fsSL -o "$tmp/checksums.txt" "$base/$version/checksums.txt" || return 1
	(cd "$tmp" && grep " $name.$ext\$" checksums.txt | sha256sum -c --quiet -) || {
		echo "dsqllint: $name.$ext does not match the release's checksums" >&2
		exit 1
	}
	if [ "$ext" = zip ]; then
		unzip -q -o "$tmp/$name.$ext" -d "$tmp"
	else
		tar -C "$tmp" -xzf "$tmp/$name.$ext"
	fi
	mv "$tmp/$name/$exe" "$dest/$exe"
}

if download; then
	echo "dsqllint: installed release $version ($os/$arch)"
else
	echo "dsqllint: no release binary for ${version:-latest} on $os/$arch; building it with go install" >&2
	GOBIN=$dest go install "github.com/dsqllint/dsqllint/cmd/dsqllint@${version:-latest}"
fi
"$dest/dsqllint" -version
echo "$dest" >>"${GITHUB_PATH:-/dev/null}"
