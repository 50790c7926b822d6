package occprom_test

import (
	"context"
	"database/sql"
	"log"
	"os"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dsqllint/dsqllint/runtime/occ"
	"github.com/dsqllint/dsqllint/runtime/occprom"
)

func ExampleNew() {
	metrics, err := occprom.New(prometheus.DefaultRegisterer)
	if err != nil {
		log.Fatal(err)
	}
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	err = occ.RunTxWithRetryVoid(context.Background(), db, func(tx *sql.Tx) error {
		_, err := tx.Exec("UPDATE shards SET owner = $1 WHERE shard_id = $2", "host-a", 7)
		return err
	}, occ.WithOperation("UpdateShards"), metrics.Option())
	if err != nil {
		log.Print(err)
	}
}
