module github.com/dsqllint/dsqllint/runtime

go 1.22
