module example.com/plainmigratemod

go 1.25
