package positions

const multiLine = `
	SELECT range_id
	FROM shards
	WHERE shard_id = $1
	FOR   SHARE`

const escaped = "SELECT \"range_id\"\tFROM shards WHERE shard_id = $1 FOR NO KEY UPDATE"

const concatenated = "SELECT range_id FROM shards " +
	"WHERE shard_id = $1 " +
	"FOR SHARE"
