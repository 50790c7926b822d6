// Package bench holds dsqllint's whole-program benchmarks: a generator for
// a SQL-dense synthetic module (bench/gen), a do-nothing analyzer run by
// the same go/packages + go/analysis/checker machinery (bench/noop), and
// run.sh, which prints dsqllint's time and peak memory over the baseline.
// Per-query benchmarks live beside the code (go test -bench ./sqlparse
// ./rules ./runtime/...).
package bench
