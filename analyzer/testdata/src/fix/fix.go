package fix

import (
	"database/sql"
	"fmt"
)

const lockBase = "SELECT range_id FROM shards WHERE shard_id = $1"

const (
	escaped    = "SELECT \"range_id\"\tFROM shards\nWHERE shard_id = $1 FOR SHARE"        // want `DSQL001`
	raw        = `SELECT range_id FROM shards WHERE shard_id = $1 for share`              // want `DSQL001`
	capital    = "SELECT range_id FROM shards WHERE shard_id = $1 For Share"              // want `DSQL001`
	noKey      = "SELECT range_id FROM shards WHERE shard_id = $1 FOR NO KEY\n\tUPDATE" // want `DSQL001`
	concat     = lockBase + " FOR SHARE"                                                 // want `DSQL001`
	splitWord  = lockBase + " FOR " + "SHARE"                                            // want `DSQL001`
	splitTwo   = lockBase + " FOR NO " + "KEY UPDATE"                                    // want `DSQL001`
	mysql      = "SELECT range_id FROM shards WHERE shard_id = ? LOCK IN SHARE MODE"     // want `DSQL002`
	mysqlLower = "select range_id from shards where shard_id = ? lock in\n share mode"   // want `DSQL002`
	mysqlSplit = "SELECT range_id FROM shards WHERE shard_id = ? LOCK IN " + "SHARE MODE" // want `DSQL002`
	skip       = "SELECT id FROM jobs WHERE id = $1 FOR SHARE SKIP LOCKED"               // want `DSQL001` `DSQL006`
)

func sprintf(db *sql.DB, table string) {
	db.Query(fmt.Sprintf("SELECT range_id FROM %s WHERE shard_id = $1 FOR SHARE", table)) // want `DSQL001 share-lock` `DSQL005 lock-without-retry`
}
