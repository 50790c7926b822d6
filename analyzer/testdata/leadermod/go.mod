module example.com/leadermod

go 1.22
