module example.com/retryfixmod

go 1.25

require github.com/dsqllint/dsqllint v0.0.0

replace github.com/dsqllint/dsqllint => ../../..
