module github.com/golang-migrate/migrate/v4

go 1.25
