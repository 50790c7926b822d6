module crossmod

go 1.22
