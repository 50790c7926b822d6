module example.com/dialectmod

go 1.25
