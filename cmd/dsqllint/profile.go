package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
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
