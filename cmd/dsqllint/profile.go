package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"time"

	"golang.org/x/tools/go/analysis/checker"
)

// startProfiles starts the CPU profile asked for by -cpuprofile; the
// returned function stops it and writes the -memprofile heap profile.
func startProfiles(o options) (stop func(), err error) {
	var cpu *os.File
	if o.cpuProfile != "" {
		if cpu, err = os.Create(o.cpuProfile); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, err
		}
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		if o.memProfile != "" {
			if err := writeHeapProfile(o.memProfile); err != nil {
				fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
			}
		}
	}, nil
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printTiming reports where a run's time went: loading (go list, parsing,
// type checking) and analysis, with the sum of the analyzer's time over
// packages (which run in parallel) and the five slowest.
func printTiming(graph *checker.Graph, load, analysis time.Duration) {
	var acts []*checker.Action
	var sum time.Duration
	for act := range graph.All() {
		acts = append(acts, act)
		sum += act.Duration
	}
	sort.Slice(acts, func(i, j int) bool { return acts[i].Duration > acts[j].Duration })
	packages := "packages"
	if len(acts) == 1 {
		packages = "package"
	}
	fmt.Fprintf(os.Stderr, "dsqllint: load %v, analysis %v (%v over %d %s)\n",
		load.Round(time.Millisecond), analysis.Round(time.Millisecond), sum.Round(time.Millisecond), len(acts), packages)
	for _, act := range acts[:min(5, len(acts))] {
		fmt.Fprintf(os.Stderr, "dsqllint: %10v %s\n", act.Duration.Round(time.Microsecond), act.Package.PkgPath)
	}
}
