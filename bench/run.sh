#!/usr/bin/env bash
# Prints dsqllint's wall time and peak memory over a do-nothing analyzer run
# the same way, on a generated SQL-dense module (and one twice its size), on
# the Go standard library, and on any module directories given as arguments.
#
#   bench/run.sh [MODULE_DIR...]
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
tools=$PWD/$out
times=$(mktemp)
trap 'rm -f "$times"' EXIT
go build -o "$out/dsqllint" ./cmd/dsqllint
go build -o "$out/noop" ./bench/noop
go run ./bench/gen -out "$out/synth100" -packages 100 -queries 60
go run ./bench/gen -out "$out/synth200" -packages 200 -queries 60

# measure TOOL DIR PATTERN: prints "seconds peak_kib" of the best of 3 runs.
measure() {
	local best="" line
	for _ in 1 2 3; do
		(cd "$2" && /usr/bin/time -f "%e %M" -o "$times" "$tools/$1" -test=false "$3" >/dev/null 2>&1) || true
		line=$(tail -1 "$times")
		if [ -z "$best" ] || awk -v a="$line" -v b="$best" 'BEGIN{split(a,x," ");split(b,y," ");exit !(x[1]<y[1])}'; then best=$line; fi
	done
	echo "$best"
}

report() { # NAME DIR PATTERN
	local n d
	n=$(measure noop "$2" "$3")
	d=$(measure dsqllint "$2" "$3")
	awk -v name="$1" -v n="$n" -v d="$d" 'BEGIN{
		split(n,a," "); split(d,b," ");
		printf "%-28s noop %7.2fs %7.0f MiB   dsqllint %7.2fs %7.0f MiB   time x%.3f  memory x%.3f\n",
			name, a[1], a[2]/1024, b[1], b[2]/1024, b[1]/a[1], b[2]/a[2] }'
}

go version
report "synthetic 100x60" "$out/synth100" ./...
report "synthetic 200x60" "$out/synth200" ./...
report "standard library" . std
for dir in "$@"; do
	report "$dir" "$dir" ./...
done
