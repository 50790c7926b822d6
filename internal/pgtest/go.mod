module github.com/dsqllint/dsqllint/internal/pgtest

go 1.22

require github.com/jackc/pgx/v5 v5.0.0

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20200714003250-2b9c44734f2b // indirect
	golang.org/x/crypto v0.0.0-20220829220503-c86fa9a7ed90 // indirect
	golang.org/x/text v0.3.7 // indirect
)
