#!/usr/bin/env bash
# Prints dsqllint's wall time, CPU time and peak memory over a do-nothing
# analyzer run the same way, on a generated SQL-dense module (and one twice
# its size), on the Go standard library, and on any module directories given
# as arguments.
#
#   bench/run.sh [MODULE_DIR...]
#   BENCH_PARSER=wasm bench/run.sh ...   the cgo-free build (libpg_query as WebAssembly)
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
tools=$PWD/$out
times=$(mktemp)
trap 'rm -f "$times"' EXIT
if [ "${BENCH_PARSER:-cgo}" = wasm ]; then
	CGO_ENABLED=0 go build -o "$out/dsqllint" ./cmd/dsqllint
else
	go build -o "$out/dsqllint" ./cmd/dsqllint
fi
go build -o "$out/noop" ./bench/noop
go run ./bench/gen -out "$out/synth100" -packages 100 -queries 60
go run ./bench/gen -out "$out/synth200" -packages 200 -queries 60
go run ./bench/gen -out "$out/synth300" -packages 300 -queries 60
go run ./bench/gen -out "$out/synth100m" -packages 100 -queries 60 -migrations 200

# runs TOOL DIR PATTERN OUT: appends "wall cpu peak_kib" of one run to OUT.
# A module other than this repository's (the generated ones live below it)
# is loaded outside the repository's go.work.
runs() {
	local work=
	[ "$2" = . ] || work=off
	(cd "$2" && GOWORK=$work /usr/bin/time -f "%e %U %S %M" -o "$times" "$tools/$1" -test=false "$3" >/dev/null 2>&1) || true
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$times" | tail -1 >>"$4"
}

# report NAME DIR PATTERN: seven runs of each tool, interleaved so that both
# see the same load; the least wall and CPU time of each (the shared machine
# only ever adds), and the median peak memory.
report() {
	local n d
	n=$(mktemp) d=$(mktemp)
	for _ in 1 2 3 4 5 6 7; do
		runs noop "$2" "$3" "$n"
		runs dsqllint "$2" "$3" "$d"
	done
	paste -d' ' "$n" "$d" | awk -v name="$1" '
		function min(a, k,  m, i) { m = a[1]; for (i = 2; i <= k; i++) if (a[i] < m) m = a[i]; return m }
		function med(a, k,  i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((k + 1) / 2)] }
		{ k++; nw[k] = $1; nc[k] = $2; nm[k] = $3; dw[k] = $4; dc[k] = $5; dm[k] = $6 }
		END {
			a = min(nw, k); b = min(dw, k); c = min(nc, k); e = min(dc, k); f = med(nm, k); g = med(dm, k)
			printf "%-26s noop %6.2fs %6.2fs cpu %5.0f MiB   dsqllint %6.2fs %6.2fs cpu %5.0f MiB   time x%.2f  cpu x%.2f  memory x%.2f\n",
				name, a, c, f / 1024, b, e, g / 1024, b / a, e / c, g / f
		}'
	rm -f "$n" "$d"
}

go version
echo "parser: ${BENCH_PARSER:-cgo}"
report "synthetic 100x60" "$out/synth100" ./...
report "synthetic 200x60" "$out/synth200" ./...
report "synthetic 300x60" "$out/synth300" ./...
report "synthetic 100x60 +schema" "$out/synth100m" ./...
report "standard library" . std
for dir in "$@"; do
	report "$dir" "$dir" ./...
done
