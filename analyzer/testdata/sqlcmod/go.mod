module example.com/sqlcmod

go 1.25
