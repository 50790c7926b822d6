module example.com/migratemod

go 1.25

require github.com/golang-migrate/migrate/v4 v4.0.0

replace github.com/golang-migrate/migrate/v4 => ./stub/migrate
