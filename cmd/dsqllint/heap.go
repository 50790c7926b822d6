package main

import (
	"runtime"
	"runtime/debug"
)

// analysisHeap prepares the heap for the analysis of persistence code.
//
// Type checking leaves garbage behind, and the heap's next goal doubles
// whatever it holds: one collection leaves the loaded program alone, and
// the analysis starts from it. The analysis of SQL-dense code then
// allocates about as much as that program and keeps most of it, its
// results: a collection in mid-analysis marks the whole program again
// (0.3 s of CPU on the synthetic 300x60 module) and frees a sixth of the
// heap, which the analysis fills again before it ends, so the peak is no
// lower. The goal stays at x2.5 the program, not x2, until the next
// collection; the usual one applies after it.
func analysisHeap() {
	runtime.GC()
	old := debug.SetGCPercent(150)
	if old != 100 { // GOGC set by the user stays as set
		debug.SetGCPercent(old)
		return
	}
	// The finalizer runs once the next collection found its object gone.
	runtime.SetFinalizer(&struct{ _ *int }{}, func(any) { debug.SetGCPercent(old) })
}
