package txflow

import (
	"fmt"
	"go/token"
)

// Summary is one package's contribution to the module stage.
type Summary struct {
	Pkg string
	// Enabled reports whether DSQL005 runs for the package, CASEnabled
	// DSQL004 and FenceEnabled DSQL003.
	Enabled, CASEnabled, FenceEnabled bool
	// Stmts are the FOR UPDATE locks and key-picked writes the package's
	// functions run on a parameter or on their receiver (or its field),
	// and the writes run on any other handle.
	Stmts []ParamStmt
	// Passes are calls that hand a parameter, the receiver, or a
	// transaction the caller begins, to another function of the module.
	Passes []Pass
	// Begins are the transactions the package's functions begin.
	Begins []Begin
	// Retried are the functions some call of this package runs inside a
	// retry helper's closure or a loop that checks for SQLSTATE 40001,
	// Unretried those some call runs outside any.
	Retried, Unretried []string
	// Returns are the transactions functions begin and hand back.
	Returns []Return
	// Closures are the functions passed as arguments to module functions.
	Closures []Closure
	// Impls map the methods of the module's interfaces to the package's
	// methods that implement them.
	Impls []Impl
	// RetryHelpers are the package's functions that retry a function
	// argument on 40001, by their body; HelperBegins and HelperCalls are
	// the Begins and calls inside closures passed to a function of
	// another package, which retries them when it is one.
	RetryHelpers []string
	HelperBegins []HelperSite
	HelperCalls  []HelperSite
	// CASResults are functions that return the result of a
	// compare-and-swap write (`return tx.ExecContext(ctx, casQuery, ...)`,
	// sqlc's :execresult), and Drops the calls of module functions whose
	// result is dropped.
	CASResults []CASResult
	Drops      []Drop
	// SingleLocks are the statements that lock FOR UPDATE outside any
	// transaction, reported as DSQL005 unless a caller retries.
	SingleLocks []SingleLock
}

// SingleLock is a statement at Pos in Func that locks outside any
// transaction; Helper, as HelperSite's, names the function of another
// package whose closure holds it.
type SingleLock struct {
	Func, Helper string
	Pos          token.Pos
}

// HelperSite is a Begin (at Pos) or a call (of Callee) in a closure
// passed to Helper.
type HelperSite struct {
	Helper, Callee string
	Pos            token.Pos
}

// CASResult is a function returning, as its first result, the result of
// the compare-and-swap write at Pos.
type CASResult struct {
	Func string
	Pos  token.Pos
}

// Drop is a call of Callee whose first result is discarded or never read
// for its row count (How says which).
type Drop struct {
	Callee   string
	How      string
	Pos, End token.Pos
}

// ParamStmt is a statement Func runs on its parameter Param (ReceiverArg
// for the receiver, NoHandle for any other handle).
type ParamStmt struct {
	Func     string
	Param    int
	Pos, End token.Pos
	// Lock is a FOR UPDATE, Quiet when a directive silences DSQL005 there;
	// Compared says the function compares the value the lock read.
	Lock, Quiet, Compared bool
	// Write is an UPDATE or DELETE that picks its row by key and fences
	// nothing; CAS a compare-and-swap write.
	Write, CAS bool
	Table      string
	Keys       []string
	// Text spans the source DSQL003 reports a write's SQL in.
	Text [2]token.Pos
}

// Impl is a method of the package implementing an interface method.
type Impl struct {
	Iface, Method string
}

// Closure is Fn passed as argument Arg of Callee: a function literal, a
// function or method value, or a parameter of the caller (a paramKey).
// Retried says the call runs inside a retry the package sees; Helper, as
// HelperSite's, names the function of another package whose closure holds
// the call.
type Closure struct {
	Callee  string
	Arg     int
	Fn      string
	Retried bool
	Helper  string
}

const (
	// ReceiverArg stands for a method's receiver where a parameter index
	// goes: a lock run on the receiver or its field (q.db), a call made
	// on a value bound to a transaction.
	ReceiverArg = -2
	// NoHandle is a statement or call on a handle that is neither a
	// parameter nor the receiver: a package pool, a local value.
	NoHandle = -3
)

// Pass is a call in From handing its parameter Param (or, with Begin >= 0,
// the transaction of Begins[Begin]) to argument Arg of Callee. Compared
// says From compares what the call returns.
type Pass struct {
	From     string
	Param    int
	Begin    int
	Callee   string
	Arg      int
	Pos      token.Pos
	Compared bool
	// Pool marks a pool or connection handed over (Param is NoHandle):
	// what runs on it runs outside any transaction. PGX says it is pgx's,
	// Retried that the call sits in a retry the package sees, Helper (as
	// HelperSite's) the function of another package whose closure holds it.
	Pool, PGX, Retried bool
	Helper             string
}

// Begin is a transaction begun in Func.
type Begin struct {
	Func string
	Pos  token.Pos
	PGX  bool
	// Retried marks a Begin the package sees re-run on 40001; Helper is
	// the function of another package its closure is passed to.
	Retried bool
	Helper  string
	// Via names the function whose result Result is the transaction, when
	// a helper of the module begins it (tx, commit, err := PrepareTx(...));
	// it counts only if that function's summary Returns it.
	Via    string
	Result int
}

// Return is a transaction Func begins and returns as result Result, as it
// is or wrapped in a value (newDB(tx), &repo{tx: tx}).
type Return struct {
	Func   string
	Result int
	PGX    bool
}

// ParamKey names the function a function-typed parameter holds.
func ParamKey(fn string, i int) string { return fmt.Sprintf("%s#%d", fn, i) }
