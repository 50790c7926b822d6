module example.com/txkit

go 1.22
