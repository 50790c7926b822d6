package orm

import (
	entsql "entgo.io/ent/dialect/sql"
	"github.com/Masterminds/squirrel"
	"github.com/doug-martin/goqu/v9"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

func gormLocks(db *gorm.DB) {
	db.Clauses(clause.Locking{Strength: "SHARE"})                                  // want `DSQL001 share-lock: gorm clause.Locking\{Strength: "SHARE"\} renders FOR SHARE`
	db.Clauses(clause.Locking{Strength: clause.LockingStrengthShare})              // want `DSQL001`
	db.Clauses(clause.Locking{Strength: "NO KEY UPDATE", Table: clause.Table{Name: "t"}}) // want `DSQL001 share-lock: .* renders FOR NO KEY UPDATE`
	db.Set("gorm:query_option", "FOR SHARE")                                        // want `DSQL001`

	db.Clauses(clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"})                  // want `DSQL006 lock-wait-policy: gorm clause.Locking\{Options: "SKIP LOCKED"\} has no effect`
	db.Clauses(clause.Locking{Strength: "UPDATE", Options: clause.LockingOptionsNoWait}) // want `DSQL006`

	// Negatives.
	db.Clauses(clause.Locking{Strength: "UPDATE"})
	db.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate})
	db.Set("gorm:query_option", "FOR UPDATE")
}

func squirrelSuffix() {
	squirrel.Select("range_id").From("shards").Where("shard_id = ?", 1).Suffix("FOR SHARE") // want `DSQL001`
	squirrel.Select("range_id").From("shards").Suffix("FOR UPDATE")
}

func goquLocks() {
	goqu.From("shards").ForShare(goqu.Wait)       // want `DSQL001 share-lock: goqu ForShare\(\) renders FOR SHARE`
	goqu.From("shards").ForNoKeyUpdate(goqu.Wait) // want `DSQL001 share-lock: goqu ForNoKeyUpdate\(\) renders FOR NO KEY UPDATE`
	goqu.From("shards").ForKeyShare(goqu.Wait)    // FOR KEY SHARE is accepted since 2026-08-25
	goqu.From("shards").ForUpdate(goqu.Wait)
	goqu.From("jobs").ForUpdate(goqu.SkipLocked) // want `DSQL006 lock-wait-policy: goqu.SkipLocked has no effect`
	goqu.From("jobs").ForUpdate(goqu.NoWait)     // want `DSQL006`
}

func entLocks(s *entsql.Selector) {
	s.ForShare() // want `DSQL001 share-lock: ent ForShare\(\) renders FOR SHARE`
	s.ForUpdate()
	s.ForUpdate(entsql.WithLockAction(entsql.SkipLocked)) // want `DSQL006 lock-wait-policy: sql.SkipLocked`
}
