module github.com/go-sql-driver/mysql

go 1.25
