// Command dsqlcheck puts dsqllint's run-time checker between any
// PostgreSQL client and server, so that integration tests in any language
// meet Aurora DSQL's refusals while they run on PostgreSQL.
//
//	dsqlcheck serve -listen 127.0.0.1:5433 -upstream 'postgres://localhost:5432/?sslmode=disable' [-reject]
//	          [-json FILE] [-sarif FILE] [-disable DSQL001,...] [-dsql-version YYYY-MM]
//
// Point the tests at -listen; users, databases and passwords are the
// clients' own, relayed to the server named by -upstream (only its
// address and TLS settings are used). With -reject, statements DSQL
// refuses fail with DSQL's SQLSTATE and message and leave the transaction
// aborted, as on DSQL; without it they run and are reported. On SIGINT or
// SIGTERM the proxy closes its connections and writes the findings
// (-json: the x/tools JSON tree, -sarif: SARIF 2.1.0, as dsqllint's).
//
// Exit status: 0 no finding, 3 findings, 1 the proxy failed.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}
