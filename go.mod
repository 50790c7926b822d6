module github.com/dsqllint/dsqllint

go 1.25.0

require (
	github.com/pganalyze/pg_query_go/v6 v6.2.5
	google.golang.org/protobuf v1.33.0
)

require github.com/google/go-cmp v0.6.0 // indirect
