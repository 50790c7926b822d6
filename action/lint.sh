#!/usr/bin/env bash
# The action's lint step: annotations on the diff (-format=github), SARIF
# for code scanning, and the Markdown summary on the job's page. It always
# succeeds, so that the SARIF is uploaded; the gate step exits with
# dsqllint's status, written to GITHUB_OUTPUT as exit-code.
set -uo pipefail
tmp=${RUNNER_TEMP:-/tmp}
sarif=$tmp/dsqllint.sarif
summary=$tmp/dsqllint.md
args=(-fail-on="${INPUT_FAIL_ON:-warning}" -format="github,sarif:$sarif,markdown:$summary")
[ -n "${INPUT_BASELINE:-}" ] && args+=(-baseline="$INPUT_BASELINE")
# INPUT_ARGS and INPUT_PACKAGES are word-split on purpose: several flags, several patterns.
# shellcheck disable=SC2206
args+=(${INPUT_ARGS:-} ${INPUT_PACKAGES:-./...})
dsqllint=dsqllint
command -v dsqllint >/dev/null 2>&1 || dsqllint=$tmp/dsqllint-bin/dsqllint
"$dsqllint" "${args[@]}"
status=$?
if [ -s "$summary" ]; then
	cat "$summary" >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
fi
{
	echo "exit-code=$status"
	[ -s "$sarif" ] && echo "sarif=$sarif"
} >>"${GITHUB_OUTPUT:-/dev/null}"
exit 0
