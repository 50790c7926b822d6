// Package nodb builds SQL but imports no database package: its texts are
// checked, and a FOR UPDATE taken by a helper called first still exempts
// the write after it.
package nodb

const share = "SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE" // want `DSQL001`

// The shard's owner is compare-and-set.
const casOwner = "UPDATE shards SET owner = $1 WHERE shard_id = $2 AND owner = $3"

func lockShard() string {
	return "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE"
}

func moveShard() []string {
	lock := lockShard()
	return []string{lock, "UPDATE shards SET owner = $1 WHERE shard_id = $2"}
}

func unlocked() string {
	return "UPDATE shards SET owner = $1 WHERE shard_id = $2" // want `DSQL003 unfenced-write: owner is compare-and-set`
}
