// Package automigrate makes its tables with gorm's AutoMigrate, whose
// PostgreSQL migrator writes serial keys and indexes without ASYNC.
package automigrate

import "gorm.io/gorm"

// gorm.Model's ID is an auto-incrementing uint: bigserial.
type Project struct {
	gorm.Model
	Name string `gorm:"index"`
}

// A lone primary key of another name, an int32: serial.
type Job struct {
	JobID int32 `gorm:"primaryKey"`
	Queue string
}

// An ID tagged autoIncrement, as Flyte's base model has it.
type Execution struct {
	ID    uint `gorm:"index;autoIncrement"`
	Phase string
}

// Quiet: a UUID key; an integer key that does not auto-increment; two
// keys, none auto-incrementing; an id beside the declared key.
type Tag struct {
	ID   string `gorm:"primaryKey;type:uuid;default:gen_random_uuid()"`
	Name string
}

type Event struct {
	ID int64 `gorm:"primaryKey;autoIncrement:false"`
}

type Pair struct {
	A int `gorm:"primaryKey"`
	B int `gorm:"primaryKey"`
}

type Counter struct {
	Key string `gorm:"primaryKey"`
	ID  int
}

func migrate(db *gorm.DB) error {
	if err := db.AutoMigrate(&Project{}, &Tag{}, &Event{}, &Pair{}, &Counter{}); err != nil { // want `DSQL101 serial: gorm's AutoMigrate makes Project.ID, an auto-incrementing integer, bigserial` `DSQL103 index-async: gorm's AutoMigrate makes the index of Project.Name with CREATE INDEX, without ASYNC`
		return err
	}
	if err := db.AutoMigrate(&Execution{}); err != nil { // want `DSQL101 serial: gorm's AutoMigrate makes Execution.ID, an auto-incrementing integer, bigserial` `DSQL103 index-async: gorm's AutoMigrate makes the index of Execution.ID`
		return err
	}
	if err := db.AutoMigrate(&Project{}); err != nil { // a column added later: the table exists
		return err
	}
	return db.Migrator().CreateTable(&Job{}) // want `DSQL101 serial: gorm's AutoMigrate makes Job.JobID, an auto-incrementing integer, serial`
}
