module example.com/dialectonlymod

go 1.25
