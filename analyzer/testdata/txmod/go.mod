module example.com/txmod

go 1.25
