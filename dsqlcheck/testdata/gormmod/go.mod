module example.com/gormmod

go 1.25.0

require (
	github.com/dsqllint/dsqllint v0.0.0
	github.com/jackc/pgx/v5 v5.12.0
	gorm.io/driver/postgres v1.6.3
	gorm.io/gorm v1.31.2
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/jinzhu/inflection v1.0.0 // indirect
	github.com/jinzhu/now v1.1.5 // indirect
	github.com/pganalyze/pg_query_go/v6 v6.2.5 // indirect
	go.yaml.in/yaml/v3 v3.0.4 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)

replace (
	github.com/dsqllint/dsqllint => ../../..
	github.com/dsqllint/dsqllint/internal/pgtest => ../../../internal/pgtest
	github.com/dsqllint/dsqllint/runtime => ../../../runtime
	github.com/dsqllint/dsqllint/runtime/occpgx => ../../../runtime/occpgx
	github.com/dsqllint/dsqllint/runtime/occprom => ../../../runtime/occprom
)
