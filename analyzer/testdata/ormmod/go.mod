module example.com/ormmod

go 1.25

require (
	github.com/Masterminds/squirrel v0.0.0
	gorm.io/gorm v0.0.0
)

replace (
	github.com/Masterminds/squirrel => ./stub/squirrel
	gorm.io/gorm => ./stub/gorm
)
