module example.com/retrymod

go 1.25.0
