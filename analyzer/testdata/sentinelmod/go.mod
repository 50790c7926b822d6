module sentinelmod

go 1.22
