module example.com/mysqlonlymod

go 1.25

require github.com/go-sql-driver/mysql v0.0.0

replace github.com/go-sql-driver/mysql => ../backendsmod/stub/mysql
