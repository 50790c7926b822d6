package main

import (
	"fmt"
	"maps"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
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
	// Each package's time is that of every pass run on it; each pass's
	// share is printed after the total.
	type pkgTime struct {
		path string
		d    time.Duration
	}
	byPkg := map[*packages.Package]*pkgTime{}
	byPass := map[string]time.Duration{}
	var sum time.Duration
	for act := range graph.All() {
		pt := byPkg[act.Package]
		if pt == nil {
			pt = &pkgTime{path: act.Package.PkgPath}
			byPkg[act.Package] = pt
		}
		pt.d += act.Duration
		byPass[act.Analyzer.Name] += act.Duration
		sum += act.Duration
	}
	pkgs := slices.Collect(maps.Values(byPkg))
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].d > pkgs[j].d })
	noun := "packages"
	if len(pkgs) == 1 {
		noun = "package"
	}
	var passes []string
	for _, name := range slices.Sorted(maps.Keys(byPass)) {
		passes = append(passes, fmt.Sprintf("%s %v", name, byPass[name].Round(time.Millisecond)))
	}
	fmt.Fprintf(os.Stderr, "dsqllint: load %v, analysis %v (%v over %d %s: %s)\n",
		load.Round(time.Millisecond), analysis.Round(time.Millisecond), sum.Round(time.Millisecond), len(pkgs), noun, strings.Join(passes, ", "))
	for _, pt := range pkgs[:min(5, len(pkgs))] {
		fmt.Fprintf(os.Stderr, "dsqllint: %10v %s\n", pt.d.Round(time.Microsecond), pt.path)
	}
}
