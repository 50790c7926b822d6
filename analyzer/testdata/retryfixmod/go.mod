module example.com/retryfixmod

go 1.22

require github.com/dsqllint/dsqllint/runtime v0.0.0

replace github.com/dsqllint/dsqllint/runtime => ../../../runtime
