package unfenced

// A work queue whose lease owner is called `worker`, a name no list holds:
// the claim sets it and the heartbeat and completion compare it, so it
// fences them.
const (
	claimItem     = "UPDATE items SET worker = $1, locked_until = now() + interval '30 seconds' WHERE id = $2 AND worker IS NULL"
	heartbeatItem = "UPDATE items SET locked_until = $1 WHERE id = $2 AND worker = $3"
	completeItem  = "DELETE FROM items WHERE id = $1 AND worker = $2"
	saveItemBody  = "UPDATE items SET body = $1 WHERE id = $2"
	findExpired   = "SELECT id FROM items WHERE locked_until < now()"

	// Deleting a claimed item by key alone takes it from its worker.
	evictItem = "DELETE FROM items WHERE id = $1" // want `DSQL003 unfenced-write: items's rows are claimed: usage.go:7 claims the row \(sets worker where it is NULL\); this DELETE deletes a claimed row by its key without checking the claim.* add .AND worker = \$2.`
)

// An OAuth2 request saved whole: its `state` is the client's parameter,
// which the store writes by key and compares nowhere.
const (
	saveAuthRequest = "UPDATE auth_requests SET client_id = $1, scopes = $2, state = $3, nonce = $4, redirect_uri = $5 WHERE id = $6"
	getAuthRequest  = "SELECT client_id, scopes, state, nonce, redirect_uri FROM auth_requests WHERE id = $1"
)
