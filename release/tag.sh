#!/usr/bin/env bash
# Tags a release of every module of the repository at VERSION — the linter
# (VERSION), the retry runtime (runtime/VERSION, runtime/occpgx/VERSION,
# runtime/occprom/VERSION) and the tests' PostgreSQL
# (internal/pgtest/VERSION) — on one commit whose go.mod files require each
# other at VERSION, with their hashes in go.sum (release/modproxy -tree).
# The branch keeps v0.0.0, which only go.work resolves: the release commit
# is reachable from the tags alone.
#
#   release/tag.sh VERSION     then: git push origin <the tags it prints>
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: release/tag.sh VERSION}
case $version in v[0-9]*.[0-9]*.[0-9]*) ;; *) echo "release/tag.sh: VERSION must look like v1.2.0, not $version" >&2; exit 1 ;; esac
if ! git diff --quiet || ! git diff --cached --quiet; then
	echo "release/tag.sh: commit or stash the changes first" >&2
	exit 1
fi
head=$(git rev-parse HEAD)
branch=$(git symbolic-ref -q --short HEAD || true)
go run ./release/modproxy -version "$version" -tree
ident=()
if [ -z "$(git config user.email || true)" ]; then
	ident=(-c user.name="dsqllint release" -c user.email="release@dsqllint.invalid")
fi
git "${ident[@]}" commit -qam "release $version: the modules require each other at $version"
release=$(git rev-parse HEAD)
if [ -n "$branch" ]; then
	git reset -q --hard "$head"
else
	git checkout -q "$head"
fi
tags=()
for prefix in "" runtime/ runtime/occpgx/ runtime/occprom/ internal/pgtest/; do
	git tag "$prefix$version" "$release"
	tags+=("$prefix$version")
done
echo "tagged $release: ${tags[*]}"
