package sqlparse

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// TxKind is the kind of a transaction-control statement.
type TxKind uint8

const (
	TxBegin          TxKind = iota + 1 // BEGIN, START TRANSACTION
	TxCommit                           // COMMIT, END
	TxRollback                         // ROLLBACK, ABORT
	TxSavepoint                        // SAVEPOINT
	TxRelease                          // RELEASE [SAVEPOINT]
	TxRollbackTo                       // ROLLBACK TO [SAVEPOINT]
	TxSetTransaction                   // SET TRANSACTION ...
	TxSetDefault                       // SET SESSION CHARACTERISTICS / SET default_transaction_isolation
)

// TxControl describes a transaction-control statement.
type TxControl struct {
	Kind TxKind
	// Isolation is the lower-cased level named ("serializable"), if any.
	Isolation string
	// IsolationSpan covers `ISOLATION LEVEL <level>` in the source.
	IsolationSpan Span
}

func (b *builder) txStmt(t *pg.TransactionStmt) *TxControl {
	kinds := map[pg.TransactionStmtKind]TxKind{
		pg.TransactionStmtKind_TRANS_STMT_BEGIN:       TxBegin,
		pg.TransactionStmtKind_TRANS_STMT_START:       TxBegin,
		pg.TransactionStmtKind_TRANS_STMT_COMMIT:      TxCommit,
		pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:    TxRollback,
		pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:   TxSavepoint,
		pg.TransactionStmtKind_TRANS_STMT_RELEASE:     TxRelease,
		pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO: TxRollbackTo,
	}
	k, ok := kinds[t.Kind]
	if !ok {
		return nil
	}
	tc := &TxControl{Kind: k}
	b.isolation(tc, t.Options)
	return tc
}

// setStmt models the SET forms that change transaction characteristics.
func (b *builder) setStmt(v *pg.VariableSetStmt) *TxControl {
	var tc *TxControl
	switch strings.ToLower(v.Name) {
	case "transaction":
		tc = &TxControl{Kind: TxSetTransaction}
	case "session characteristics", "default_transaction_isolation":
		tc = &TxControl{Kind: TxSetDefault}
	default:
		return nil
	}
	b.isolation(tc, v.Args)
	if tc.Isolation == "" && strings.EqualFold(v.Name, "default_transaction_isolation") && len(v.Args) == 1 {
		tc.Isolation = strings.ToLower(v.Args[0].GetAConst().GetSval().GetSval())
	}
	return tc
}

// isolation reads transaction_isolation from options and locates the
// `ISOLATION LEVEL ...` words in the text.
func (b *builder) isolation(tc *TxControl, opts []*pg.Node) {
	for _, o := range opts {
		if de := o.GetDefElem(); de != nil && de.Defname == "transaction_isolation" {
			tc.Isolation = strings.ToLower(de.Arg.GetAConst().GetSval().GetSval())
		}
	}
	if tc.Isolation == "" {
		return
	}
	for i, t := range b.toks {
		if t.Kind != TokIdent || !strings.EqualFold(t.Text(b.text), "isolation") {
			continue
		}
		words := append([]string{"isolation", "level"}, strings.Fields(tc.Isolation)...)
		if end, ok := matchWords(b.text, b.toks, i, words...); ok {
			tc.IsolationSpan = Span{t.Start, end}
		}
		return
	}
}
