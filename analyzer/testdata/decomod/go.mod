module example.com/decomod

go 1.25
