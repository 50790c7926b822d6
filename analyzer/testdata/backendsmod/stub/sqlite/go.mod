module modernc.org/sqlite

go 1.25
