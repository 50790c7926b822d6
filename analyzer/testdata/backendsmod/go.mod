module example.com/backendsmod

go 1.25

require (
	github.com/go-sql-driver/mysql v0.0.0
	github.com/jackc/pgx/v5 v5.0.0
	modernc.org/sqlite v0.0.0
)

replace (
	github.com/go-sql-driver/mysql => ./stub/mysql
	github.com/jackc/pgx/v5 => ./stub/pgx
	modernc.org/sqlite => ./stub/sqlite
)
