module example.com/fencemod

go 1.25
