// Command pgwhich starts the PostgreSQL server the tests would use,
// fetching it first if the machine has none, says which it is and where it
// came from, and stops it: CI prints it before running the tests, and a
// contributor can run it to fetch the server ahead of them.
//
//	go run ./internal/pgtest/pgwhich
package main

import (
	"fmt"
	"os"

	"github.com/dsqllint/dsqllint/internal/pgtest"
)

func main() {
	s, err := pgtest.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("tests run on " + s.Source())
	if err := s.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
