package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/dsqllint/dsqllint/dsqlcheck"
	"github.com/dsqllint/dsqllint/rules"
)

// run runs the command until ctx ends; it returns the exit status.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "serve" {
		fmt.Fprintln(stderr, "usage: dsqlcheck serve -listen ADDR -upstream URL [-reject] [-json FILE] [-sarif FILE] [-disable IDS] [-dsql-version YYYY-MM]")
		return 1
	}
	fs := flag.NewFlagSet("dsqlcheck serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:5433", "address to serve clients on (host:port, or a unix socket's path)")
	upstream := fs.String("upstream", "", "the PostgreSQL server, as a URL or key=value string (host, port, sslmode)")
	reject := fs.Bool("reject", false, "refuse what Aurora DSQL refuses, with its SQLSTATE and message")
	jsonOut := fs.String("json", "", "write the findings as JSON to this file on exit")
	sarifOut := fs.String("sarif", "", "write the findings as SARIF to this file on exit")
	disable := fs.String("disable", "", "rule IDs to turn off, comma-separated")
	version := fs.String("dsql-version", "", "check against the DSQL of this date (YYYY-MM or YYYY-MM-DD)")
	if err := fs.Parse(args[1:]); err != nil {
		return 1
	}
	if *upstream == "" {
		fmt.Fprintln(stderr, "dsqlcheck serve: -upstream is required")
		return 1
	}
	var opts []dsqlcheck.Option
	if *reject {
		opts = append(opts, dsqlcheck.WithReject())
	}
	if *disable != "" {
		opts = append(opts, dsqlcheck.WithDisable(strings.Split(*disable, ",")...))
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "dsqlcheck serve:", err)
		return 1
	}
	if *version != "" {
		if _, err := rules.ParseVersion(*version); err != nil {
			return fail(err) // WithDSQLVersion would panic, as on a test's own mistake
		}
		opts = append(opts, dsqlcheck.WithDSQLVersion(*version))
	}
	c := dsqlcheck.New(opts...)
	proxy, err := c.NewProxy(*upstream)
	if err != nil {
		return fail(err)
	}
	proxy.Logf = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	network := "tcp"
	if strings.HasPrefix(*listen, "/") {
		network = "unix"
		_ = os.Remove(*listen)
	}
	ln, err := net.Listen(network, *listen)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stderr, "dsqlcheck: serving %s, checking statements to %s\n", ln.Addr(), *upstream)
	served := make(chan error, 1)
	go func() { served <- proxy.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	proxy.Close()
	if err != nil {
		return fail(err)
	}
	if err := write(*jsonOut, func(w io.Writer) error { return c.WriteJSON(w) }); err != nil {
		return fail(err)
	}
	if err := write(*sarifOut, func(w io.Writer) error { return c.WriteSARIF(w, "") }); err != nil {
		return fail(err)
	}
	found := c.Findings()
	for _, f := range found {
		fmt.Fprintf(stderr, "%s\n\t%s\n", f.Message, f.SQL)
	}
	if len(found) > 0 {
		return 3
	}
	return 0
}

func write(path string, emit func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := emit(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
