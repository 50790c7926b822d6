// Package gormmod checks, at run time, SQL that gorm assembles: no
// static analysis sees the FOR SHARE a clause.Locking builds.
package gormmod

import (
	"database/sql"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/dsqllint/dsqllint/dsqlcheck"
)

type Job struct {
	ID    int64
	State string
}

func TestGormLocking(t *testing.T) {
	dsn := os.Getenv("DSQLCHECK_DSN")
	if dsn == "" {
		t.Fatal("DSQLCHECK_DSN is not set: dsqlcheck's TestGormModule runs this test with a database")
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	checker := dsqlcheck.New()
	sqlDB := sql.OpenDB(checker.WrapConnector(stdlib.GetConnector(*cfg)))
	defer sqlDB.Close()
	db, err := gorm.Open(postgres.New(postgres.Config{Conn: sqlDB}), &gorm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Exec("CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL)").Error; err != nil {
		t.Fatal(err)
	}
	db.Create(&Job{ID: 1, State: "ready"})

	var j Job
	db.Clauses(clause.Locking{Strength: "SHARE"}).First(&j, 1)
	fs := checker.Findings()
	if len(fs) != 1 || fs[0].Rule != "DSQL001" || !strings.Contains(fs[0].SQL, "FOR SHARE") || !strings.HasPrefix(fs[0].Caller, "gorm_test.go:") {
		t.Fatalf("gorm's FOR SHARE: %+v", fs)
	}

	// The negative twin: FOR UPDATE, which DSQL runs.
	checker.Reset()
	db.Clauses(clause.Locking{Strength: "UPDATE"}).First(&j, 1)
	if fs := checker.Findings(); len(fs) != 0 {
		t.Fatalf("gorm's FOR UPDATE: %+v", fs)
	}
}
