package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// The analysis's higher heap goal lasts until the next collection.
func TestAnalysisHeapGoalLastsOneCollection(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	analysisHeap()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Fatalf("GOGC after analysisHeap: %d, want 150", got)
	}
	for range 200 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond) // finalizers run on a goroutine of their own
		if got := debug.SetGCPercent(150); got == 100 {
			return
		}
	}
	t.Fatal("GOGC stayed at 150 after 200 collections")
}

// A GOGC the user set is left as set.
func TestAnalysisHeapKeepsUsersGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(300))
	analysisHeap()
	if got := debug.SetGCPercent(300); got != 300 {
		t.Fatalf("GOGC after analysisHeap: %d, want the user's 300", got)
	}
}
