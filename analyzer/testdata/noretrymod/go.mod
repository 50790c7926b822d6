module example.com/noretrymod

go 1.25
