module example.com/casmod

go 1.25
