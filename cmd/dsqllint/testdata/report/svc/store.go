// Package svc is a small store for the report format tests.
package svc

import "embed"

// Queries are sqlc-style queries, checked with the package.
//
//go:embed queries/*.sql
var Queries embed.FS

// Orders read under a share lock: DSQL001, an error.
const readOrder = "SELECT status FROM orders WHERE id = $1 FOR SHARE"

// A lease taken whoever holds it: DSQL003, a warning.
const stealLease = "UPDATE leases SET worker_id = $1, expires_at = $2 WHERE resource_id = $3"

// Non-ASCII text before the clause: SARIF columns count UTF-16 code units.
const readNote = "SELECT body FROM notes WHERE title = 'héllo 🙂' FOR SHARE"

// The renewal by the lease's holder.
const renewLease = "UPDATE leases SET expires_at = $1 WHERE resource_id = $2 AND worker_id = $3"

// The claim whose holder the renewal checks.
const claimLease = "UPDATE leases SET worker_id = $1, expires_at = $2 WHERE resource_id = $3 AND expires_at < now()"
