module github.com/Masterminds/squirrel

go 1.25
