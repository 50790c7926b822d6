#!/usr/bin/env bash
# Runs the action's script steps as GitHub would, on the bundled example,
# installing from a release snapshot (release/build.sh) served as file://.
#
#   action/test.sh DIST     DIST: the snapshot's output directory
set -euo pipefail
cd "$(dirname "$0")/.."
dist=$(cd "${1:?usage: action/test.sh DIST}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/releases/v0.0.0-snapshot" "$work/runner"
cp "$dist"/* "$work/releases/v0.0.0-snapshot/"
export RUNNER_TEMP=$work/runner GITHUB_PATH=$work/path GITHUB_OUTPUT=$work/output GITHUB_STEP_SUMMARY=$work/summary
export RUNNER_OS=Linux RUNNER_ARCH=X64 DSQLLINT_DOWNLOAD_BASE=file://$work/releases
: >"$GITHUB_PATH" && : >"$GITHUB_OUTPUT" && : >"$GITHUB_STEP_SUMMARY"

INPUT_VERSION=v0.0.0-snapshot action/install.sh
grep -qx "$RUNNER_TEMP/dsqllint-bin" "$GITHUB_PATH" || { echo "install: dsqllint not put on GITHUB_PATH" >&2; exit 1; }
"$RUNNER_TEMP/dsqllint-bin/dsqllint" -version | grep -q "dsqllint v0.0.0-snapshot .*parser wasm" || { echo "install: not the snapshot's cgo-free binary" >&2; exit 1; }

PATH=$RUNNER_TEMP/dsqllint-bin:$PATH INPUT_PACKAGES=./examples/... INPUT_FAIL_ON=warning action/lint.sh >"$work/annotations"
grep -qx "exit-code=3" "$GITHUB_OUTPUT" || { echo "lint: exit-code is not 3:" >&2; cat "$GITHUB_OUTPUT" >&2; exit 1; }
grep -q "^sarif=.*dsqllint.sarif$" "$GITHUB_OUTPUT" || { echo "lint: no sarif output" >&2; exit 1; }
grep -q "^::error file=examples/shardstore/store.go,line=17" "$work/annotations" || { echo "lint: no annotation" >&2; cat "$work/annotations" >&2; exit 1; }
# The job summary counts what the annotations show.
n=$(grep -c "^::" "$work/annotations")
grep -q "^## dsqllint: $n findings" "$GITHUB_STEP_SUMMARY" || { echo "lint: no job summary of the $n annotations" >&2; cat "$GITHUB_STEP_SUMMARY" >&2; exit 1; }

# With -fail-on=error and a baseline holding every finding, the gate opens.
"$RUNNER_TEMP/dsqllint-bin/dsqllint" -write-baseline="$work/baseline.json" ./examples/... 2>/dev/null
: >"$GITHUB_OUTPUT"
PATH=$RUNNER_TEMP/dsqllint-bin:$PATH INPUT_PACKAGES=./examples/... INPUT_BASELINE=$work/baseline.json action/lint.sh >/dev/null
grep -qx "exit-code=0" "$GITHUB_OUTPUT" || { echo "lint with the baseline: exit-code is not 0:" >&2; cat "$GITHUB_OUTPUT" >&2; exit 1; }
echo "action: install and lint steps behave on the bundled example"
