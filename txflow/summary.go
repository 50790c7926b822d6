package txflow

import (
	"fmt"
	"go/token"
	"path"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/rules"
)

// Summary is one package's contribution to the module stage.
type Summary struct {
	Pkg string
	// Module is the path of the package's module: DSQL003 weighs the
	// fences of the package's own module (a workspace's drivers for other
	// databases keep theirs).
	Module string
	// Enabled reports whether DSQL005 runs for the package, CASEnabled
	// DSQL004 and FenceEnabled DSQL003.
	Enabled, CASEnabled, FenceEnabled bool
	// Foreign marks a package the module stage joins without reporting
	// in it: a helper outside the packages linted (a retry or transaction
	// helper of another module). Its locks are reported where a linted
	// package runs them outside any retry, as JoinPackage reports an
	// imported package's.
	Foreign bool
	// Stmts are the FOR UPDATE locks and key-picked writes the package's
	// functions run on a parameter or on their receiver (or its field),
	// and the writes run on any other handle.
	Stmts []ParamStmt
	// Passes are calls that hand a parameter, the receiver, or a
	// transaction the caller begins, to another function of the module.
	Passes []Pass
	// Begins are the transactions the package's functions begin.
	Begins []Begin
	// Repeatable are the package's functions a retry may run again, for
	// DSQL005's fix in other packages.
	Repeatable []Repeatable
	// Returns are the transactions functions begin and hand back.
	Returns []Return
	// Closures are the functions passed as arguments to module functions.
	Closures []Closure
	// Impls map the methods of the module's interfaces to the package's
	// methods that implement them. Interfaces and Types let the module
	// stage find more: the package's interfaces, and its types that have
	// a method the stage follows, each by its methods' names and
	// signatures, so that a type matches an interface of a package it
	// never imports.
	Impls      []Impl
	Interfaces []MethodSet
	Types      []MethodSet
	// Calls are the calls of module functions, of function-typed
	// parameters, and of the closures and method values handed to code
	// outside the module (which calls them where it is called), each with
	// the retry around it: the edges DSQL005 follows from a lock back to
	// what runs it.
	Calls []Call
	// Retries are the constructs that re-run work on SQLSTATE 40001: retry
	// helpers recognised by their body, loops that check for 40001, calls
	// of a configured retry function.
	Retries []Retry
	// Predicates are the package's functions that judge an error and
	// check for a serialization failure, and its sentinels: the errors
	// (functions called with no arguments, package variables) its
	// branches testing for 40001 return, which a loop tests for as for a
	// predicate (errors.Is(err, sqlerr.ErrConflict())); Loops the package's loops whose
	// check for one is left to a predicate of another package or an
	// interface method (the Loop of a Call, a Begin, a run, a closure).
	Predicates []string
	Loops      []Loop
	// Locks are the statement texts that lock FOR UPDATE (and the fenced
	// read-modify-writes of the transactions the package begins), each
	// reported by DSQL005 at its lock clause unless every way it runs is
	// shown retried; Runs are the ways the package runs them.
	Locks []LockSite
	Runs  []LockRun
	// fences is what the package's statements tell about fencing
	// (SetFences), and Writes judges the package's writes again (DSQL003)
	// with what the whole module tells: a table's owner column compared
	// in one package and assigned in another fences writes in both. Both
	// stay in the process that made them: a Fact sends neither.
	fences *fencing.Fences
	Writes func(module *fencing.Fences, traced func(stmt token.Pos) (rules.TxView, bool)) []WriteVerdict
	// CASResults are functions that return the result of a
	// compare-and-swap write (`return tx.ExecContext(ctx, casQuery, ...)`,
	// sqlc's :execresult), and Drops the calls of module functions whose
	// result is dropped.
	CASResults []CASResult
	Drops      []Drop
	// Excluded reports a finding the module's configuration drops in the
	// package (its exclude entries); nil when there are none.
	Excluded func(pos token.Pos, category string) bool
}

// WriteVerdict is DSQL003's judgement of one write: the finding, or (Diag
// nil) why the write was left alone; Pos and End span the statement.
type WriteVerdict struct {
	Pos, End token.Pos
	Diag     *analysis.Diagnostic
	Why      string
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
	// Lock is a FOR UPDATE, Quiet when a directive silences DSQL005 there.
	Lock, Quiet bool
	// Write is an UPDATE or DELETE that picks its row by key and fences
	// nothing; CAS a compare-and-swap write.
	Write, CAS bool
	Table      string
	Keys       []string
	// Priors are what the statement establishes for the statements after
	// it in its transaction (DSQL003): a lock, an advisory lock, an insert.
	Priors []rules.Prior
	// At is where the write's statement starts in the source DSQL003
	// reports it in: the text a constant declares, the query file sqlc
	// read.
	At token.Pos
}

// Impl is a method of the package implementing an interface method.
type Impl struct {
	Iface, Method string
}

// MethodSet is the method set of an interface or of a type (*T): the
// methods' names, and each method's key and its name and signature
// spelled with package paths, made only when the module stage compares
// an interface and a type whose names match.
type MethodSet struct {
	Names   []string
	Methods func() []Method
	// List is what Methods returns, made when the set is sent to another
	// process (Fact), where Methods is not.
	List []Method
}

func (m MethodSet) methods() []Method {
	if m.Methods != nil {
		return m.Methods()
	}
	return m.List
}

// Method is one method of a MethodSet.
type Method struct {
	Key, Sig string
}

// Closure is Fn passed as argument Arg of Callee by the call at Pos in
// From: a function literal, a function or method value, or a parameter of
// the caller (a paramKey). Retried says the call runs inside a retry the
// package sees: Fn then runs inside it too.
type Closure struct {
	From    string
	Callee  string
	Arg     int
	Fn      string
	Pos     token.Pos
	Retried bool
	Loop    token.Pos
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
// the transaction of Begins[Begin]) to argument Arg of Callee.
type Pass struct {
	From   string
	Param  int
	Begin  int
	Callee string
	Arg    int
	Pos    token.Pos
	// Pool marks a pool or connection handed over (Param is NoHandle):
	// what runs on it runs outside any transaction; PGX says it is pgx's.
	Pool, PGX bool
}

// Begin is a transaction begun in Func.
type Begin struct {
	Func string
	Pos  token.Pos
	PGX  bool
	// Retried marks a Begin the package sees re-run on 40001.
	Retried bool
	// Serializable is where the transaction is set SERIALIZABLE, "" when
	// it is not.
	Serializable string
	Loop         token.Pos
	// Via names the function whose result Result is the transaction, when
	// a helper of the module begins it (tx, commit, err := PrepareTx(...));
	// it counts only if that function's summary Returns it.
	Via    string
	Result int
	// Fix rewrites the function that begins it to run the transaction in
	// the OCC retry helper (DSQL005's fix); NoFix says why there is none.
	Fix   *analysis.SuggestedFix
	NoFix string
	// Needs are functions of other packages the transaction's statements
	// call: the fix stands only if each repeats harmlessly (Repeatable).
	Needs []Need
}

// Need is a call of a function of another package that DSQL005's fix
// rests on: Func must be Repeatable.
type Need struct {
	Func string
	Name string // pkg.Func, for the message
	Line int    // of the call
}

// Repeatable is a function a retry may run again: it does nothing
// outside the transaction it is handed but what its Needs do.
type Repeatable struct {
	Func  string
	Needs []string
}

// Return is a transaction Func begins and returns as result Result, as it
// is or wrapped in a value (newDB(tx), &repo{tx: tx}).
type Return struct {
	Func   string
	Result int
	PGX    bool
}

// Call is a call in From of Callee (a function key, an interface
// method's, or a ParamKey), at Pos. Retried says it runs inside a retry
// the package sees (a closure handed to a retry function, a loop that
// checks for 40001); Test that it is in a test file, whose retries no one
// porting to DSQL needs.
type Call struct {
	From, Callee  string
	Pos           token.Pos
	Retried, Test bool
	Loop          token.Pos
	// Dynamic says Callee is an interface method: what runs is decided
	// by the value, whose type may be in any package.
	Dynamic bool
}

// Loop is a loop at Pos whose check for a serialization failure calls
// Preds, predicates of other packages (or interface methods): it is a
// retry on 40001 when one of them checks for one. The Loop of a Call,
// Begin, Closure, LockRun or Pin names the loop around it.
type Loop struct {
	Pos   token.Pos
	Preds []string
}

// Retry is a construct at Pos that re-runs work on SQLSTATE 40001; Helper
// is the function key of a retry helper (a function that re-runs one of
// its function parameters in such a loop), "" for a loop or a call of a
// configured retry function.
type Retry struct {
	Pos    token.Pos
	Helper string
}

// LockSite is a statement text that needs a 40001 retry around the
// transaction that runs it: a FOR UPDATE (What "SELECT ... FOR UPDATE"),
// reported at its lock clause [Pos, End), or a fenced read-modify-write.
// Const names the package constant that declares the text
// ("pkg/path.Name"), for the runs of other packages. Quiet says a
// directive silences DSQL005 there, Test that the text is in a test file.
// Exec says it is run with Exec (no rows read).
type LockSite struct {
	Pos, End          token.Pos
	Const, What       string
	Quiet, Test, Exec bool
}

// LockRun is a way the package runs lock sites: the statement at Pos,
// in Func, on a handle — Param (a parameter index, ReceiverArg, or
// NoHandle), or the transaction of Begins[Begin], or a pool (Pool; PGX
// says pgx's). Sites are the package's sites it runs, Consts those
// declared as constants of other packages. Retried says a retry in Func
// surrounds the statement. Via pins how Func is called when the text
// runs through the package's own query functions: Via[0] is the call of
// Func, Via[1] the call of Via[0].Func, and so on. Unfollowed marks a use
// of the text that is no known query call (an ORM's raw query, a value
// handed on): the statement runs somewhere in Func's dynamic extent, on a
// handle dsqllint does not know.
type LockRun struct {
	Sites        []token.Pos
	Consts       []string
	Func         string
	Param, Begin int
	Pool, PGX    bool
	Retried      bool
	Loop         token.Pos
	Unfollowed   bool
	Pos          token.Pos
	Via          []Pin
	// Fix re-runs a statement run on a pool on 40001 (DSQL005's fix).
	Fix *analysis.SuggestedFix
}

// Pin is the call at Pos, in Func, through which a query function runs a
// lock; Retried says a retry in Func surrounds it.
type Pin struct {
	Func    string
	Pos     token.Pos
	Retried bool
	Loop    token.Pos
}

// SetFences records what the package's statements tell about fencing.
func (s *Summary) SetFences(f *fencing.Fences) { s.fences = f }

// Fences returns what the package's statements tell about fencing.
func (s *Summary) Fences() *fencing.Fences { return s.fences }

// ParamKey names the function a function-typed parameter holds.
func ParamKey(fn string, i int) string { return fmt.Sprintf("%s#%d", fn, i) }

// String lists what the summary holds, by kind, for tests and debugging:
// "store{stmts:1 locks:1 runs:1}".
func (s *Summary) String() string {
	var b strings.Builder
	b.WriteString(path.Base(s.Pkg) + "{")
	sep := ""
	add := func(name string, n int) {
		if n > 0 {
			fmt.Fprintf(&b, "%s%s:%d", sep, name, n)
			sep = " "
		}
	}
	add("stmts", len(s.Stmts))
	add("passes", len(s.Passes))
	add("begins", len(s.Begins))
	add("repeatable", len(s.Repeatable))
	add("returns", len(s.Returns))
	add("closures", len(s.Closures))
	add("impls", len(s.Impls))
	add("calls", len(s.Calls))
	add("retries", len(s.Retries))
	add("predicates", len(s.Predicates))
	add("loops", len(s.Loops))
	add("locks", len(s.Locks))
	add("runs", len(s.Runs))
	add("casresults", len(s.CASResults))
	add("drops", len(s.Drops))
	b.WriteString("}")
	return b.String()
}

// Empty reports a summary that tells the join nothing: no statement,
// call, transaction, retry, lock or fence of the module's. Method sets alone
// tell nothing: they only connect what other summaries say.
func (s *Summary) Empty() bool {
	return !s.fences.Shows() && len(s.Stmts)+len(s.Passes)+len(s.Begins)+len(s.Repeatable)+len(s.Returns)+len(s.Closures)+
		len(s.Calls)+len(s.Retries)+len(s.Predicates)+
		len(s.Loops)+len(s.Locks)+len(s.Runs)+len(s.CASResults)+len(s.Drops) == 0
}
