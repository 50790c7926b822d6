// Package queries holds shared query constants, reported here, at their
// declaration, and not again where other packages use them.
package queries

const LockShardBase = "SELECT range_id FROM shards WHERE shard_id = $1"

const ReadLockShard = LockShardBase + " FOR SHARE" // want `DSQL001 share-lock: FOR SHARE is not supported`
