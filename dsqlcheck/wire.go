package dsqlcheck

import (
	"bytes"
	"errors"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgproto3"
)

// The wire checker stands between a PostgreSQL client and server and
// checks every simple Query and every Parse on its way. A statement DSQL
// refuses never reaches the server as written: the proxy sends instead a
// statement that fails (a marker, see wiretext.go), so that the server
// itself answers in the pipeline's order, skips what follows up to Sync,
// aborts the transaction and reports its state in ReadyForQuery, all as
// after any error; the proxy then puts DSQL's ErrorResponse in the place
// of the marker's. What the server answers is matched to what was sent
// with a queue of expectations, one per message sent.

// wireSession is one client connection and its server connection.
type wireSession struct {
	c      *Checker
	client net.Conn
	server net.Conn
	be     *pgproto3.Backend  // reads the client, writes its answers
	fe     *pgproto3.Frontend // writes the server, reads its answers

	clientMu sync.Mutex // writes to the client: the server loop's, and the held answers the client loop releases

	mu      sync.Mutex
	pending []*expect
	// skipping: the server failed a message of the current pipeline and
	// ignores the rest of it up to Sync; what is sent meanwhile gets no
	// answer.
	skipping bool
	// dropping: a statement crossed the row limit and its answers, up to
	// the refusal the client loop sends, are not the client's.
	dropping bool
	crossed  bool
	markers  map[int]*mark
	next     int
	st       txState

	// the client loop's own state: prepared statements and portals by
	// name, and the pipeline since the last Sync.
	stmts    map[string]*prepared
	portals  map[string]*prepared
	groupDML bool
	last     *expect
}

// prepared is a statement the client prepared, as checked.
type prepared struct {
	v   *verdict
	sql string
	job string // CREATE INDEX ASYNC: the DDL, run when the client executes the job-row query sent in its place
	tag map[string]string
}

// expect is what the server owes for one message sent to it.
type expect struct {
	kind byte   // the message: 'P' Parse, 'B' Bind, 'D' Describe, 'E' Execute, 'C' Close, 'S' Sync, 'Q' Query
	sql  string // the client's statement, for the row-limit finding
	// own: a message of the proxy's; its answers are not the client's,
	// but its errors are (they are the client's statement failing) and,
	// with ready, its ReadyForQuery.
	own, ready bool
	tag        map[string]string // CommandComplete tags to say otherwise ("DO" → "ALTER TABLE")
	dropTags   int               // CommandCompletes to drop (a translated DDL before its job row)
	// dml: the client loop waits for this answer (hold) to refuse a
	// statement that crossed the row limit; only then may a crossing
	// answer be dropped.
	dml  bool
	hold chan held
	done bool
}

// held is the end of an answer the client loop waited for.
type held struct {
	crossed bool
	ready   *pgproto3.ReadyForQuery // a simple query's, not yet sent to the client
}

var errCancelRequest = errors.New("cancel request relayed")

var copyStatement = regexp.MustCompile(`(?i)^\s*copy\b`)

// run serves the session until either side closes.
func (s *wireSession) run() {
	defer s.client.Close()
	defer s.server.Close()
	if err := s.startup(); err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.serverLoop()
		s.client.Close() // the client loop's read ends
		s.release()
	}()
	_ = s.clientLoop()
	s.server.Close()
	<-done
}

// release frees a client loop waiting on an answer that will not come.
func (s *wireSession) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.pending {
		if e.hold != nil {
			close(e.hold)
			e.hold = nil
		}
	}
	s.pending = nil
}

// startup relays the startup and authentication exchange.
func (s *wireSession) startup() error {
startup:
	for {
		msg, err := s.be.ReceiveStartupMessage()
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest, *pgproto3.GSSEncRequest:
			// The client's link is local; the proxy speaks TLS upstream
			// when it was configured to.
			if _, err := s.client.Write([]byte{'N'}); err != nil {
				return err
			}
			continue
		case *pgproto3.CancelRequest:
			s.fe.Send(m)
			if err := s.fe.Flush(); err != nil {
				return err
			}
			_, _ = io.Copy(s.client, s.server) // until the server closes
			return errCancelRequest
		case *pgproto3.StartupMessage:
			s.fe.Send(m)
			if err := s.fe.Flush(); err != nil {
				return err
			}
			break startup
		}
	}
	for {
		msg, err := s.fe.Receive()
		if err != nil {
			return err
		}
		s.be.Send(msg)
		if err := s.be.Flush(); err != nil {
			return err
		}
		var auth uint32
		switch msg.(type) {
		case *pgproto3.ReadyForQuery:
			return nil
		case *pgproto3.ErrorResponse:
			return errors.New("the server refused the connection")
		case *pgproto3.AuthenticationCleartextPassword:
			auth = pgproto3.AuthTypeCleartextPassword
		case *pgproto3.AuthenticationMD5Password:
			auth = pgproto3.AuthTypeMD5Password
		case *pgproto3.AuthenticationSASL:
			auth = pgproto3.AuthTypeSASL
		case *pgproto3.AuthenticationSASLContinue:
			auth = pgproto3.AuthTypeSASLContinue
		default:
			continue
		}
		if err := s.be.SetAuthType(auth); err != nil {
			return err
		}
		reply, err := s.be.Receive()
		if err != nil {
			return err
		}
		s.fe.Send(reply)
		if err := s.fe.Flush(); err != nil {
			return err
		}
	}
}

// clientLoop reads the client's messages and sends the server what it
// should run.
func (s *wireSession) clientLoop() error {
	s.stmts, s.portals = map[string]*prepared{}, map[string]*prepared{}
	for {
		msg, err := s.be.Receive()
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.Query:
			err = s.query(m.String)
		case *pgproto3.Parse:
			err = s.parse(m)
		case *pgproto3.Bind:
			s.portals[m.DestinationPortal] = s.stmts[m.PreparedStatement]
			s.send(m, &expect{kind: 'B'})
		case *pgproto3.Describe:
			s.send(m, &expect{kind: 'D'})
		case *pgproto3.Execute:
			err = s.execute(m)
		case *pgproto3.Close:
			if m.ObjectType == 'S' {
				delete(s.stmts, m.Name)
			} else {
				delete(s.portals, m.Name)
			}
			s.send(m, &expect{kind: 'C'})
		case *pgproto3.Sync:
			err = s.sync()
		case *pgproto3.FunctionCall:
			s.send(m, &expect{kind: 'Q'}) // answered up to ReadyForQuery, as a query
			err = s.fe.Flush()
		case *pgproto3.Terminate:
			s.fe.Send(m)
			_ = s.fe.Flush()
			return nil
		default: // Flush, CopyData, CopyDone, CopyFail
			s.fe.Send(m)
			err = s.fe.Flush()
		}
		if err != nil {
			return err
		}
	}
}

// send sends a message, expecting e's answer. While the server skips to
// Sync, nothing but Sync is answered, and nothing is expected.
func (s *wireSession) send(m pgproto3.FrontendMessage, e *expect) *expect {
	s.fe.Send(m)
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.kind == 'S' || e.kind == 'Q' {
		s.skipping = false
	} else if s.skipping {
		return nil
	}
	s.pending = append(s.pending, e)
	s.last = e
	return e
}

// mark is a refusal a marker stands for, and the finding to record when
// the server raises it (when only the server's catalog can tell).
type mark struct {
	err                *Error
	rule, message, sql string
}

// marker registers a refusal and returns its number.
func (s *wireSession) marker(e *Error) int { return s.addMark(&mark{err: e}) }

func (s *wireSession) addMark(m *mark) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	s.markers[s.next] = m
	return s.next
}

// keyMarks returns the mark function of keyGuarded for a statement.
func (s *wireSession) keyMarks(sql string) func(column, table string) int {
	return func(column, table string) int {
		return s.addMark(&mark{err: dropKeyRefusal(column), rule: "DSQL108", message: dropKeyMessage(column, table), sql: sql})
	}
}

// part is one statement of a query string, as checked and as sent.
type part struct {
	sql  string
	v    *verdict
	sent string
}

// parts returns a simple query's statements, each as checked.
func (s *wireSession) parts(text string) []part {
	v := s.c.check(text)
	if len(v.parts) == 0 {
		return []part{{sql: text, v: v}}
	}
	ps := make([]part, len(v.parts))
	for i, q := range v.parts {
		ps[i] = part{sql: q, v: s.c.check(q)}
	}
	return ps
}

// txControl reports whether a query's statements begin or end a
// transaction.
func txControl(ps []part) bool {
	for _, p := range ps {
		if p.v.class == classBegin || p.v.class == classEnd {
			return true
		}
	}
	return false
}

// judge checks one statement about to run and follows BEGIN and COMMIT;
// it returns DSQL's refusal, or nil.
func (s *wireSession) judge(v *verdict, sql string) *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v.commit {
		_ = s.c.ending(&s.st, sql, false) // the age limit: reported, the transaction is the server's
	}
	e := s.c.before(&s.st, v, sql, s.c.reject)
	if e == nil {
		switch v.class {
		case classBegin:
			s.st.begin()
		case classEnd:
			s.st.end()
		}
	}
	return e
}

func (s *wireSession) inTx() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.open
}

// query checks a simple query, statement by statement, and sends what the
// server should run: up to the first refused statement, then its marker.
func (s *wireSession) query(text string) error {
	ps := s.parts(text)
	open := s.inTx()
	if implicit := len(ps) > 1 && !open && !txControl(ps); implicit {
		// The statements of one query outside a transaction are one
		// transaction, as on DSQL: what one of them may not share with
		// another (DSQL104) is judged across them.
		s.mu.Lock()
		s.st.begin()
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.st.end()
			s.mu.Unlock()
		}()
	}
	e := &expect{kind: 'Q', sql: text}
	var b bytes.Buffer
	unheld, dml := false, false // unheld: holding the answer could not work
	for i := range ps {
		p := &ps[i]
		unheld = unheld || p.v.class == classBegin || p.v.class == classEnd
		dml = dml || p.v.dml
		// COPY FROM STDIN is answered only after the client's data: it
		// cannot be held.
		unheld = unheld || copyStatement.MatchString(p.sql)
		if refusal := s.judge(p.v, p.sql); refusal != nil {
			if b.Len() > 0 {
				b.WriteString("; ")
			}
			b.WriteString(markerQuery(s.marker(refusal)))
			break
		}
		p.sent = s.translate(p, len(ps) == 1, e)
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.sent)
	}
	sent := b.String()
	if len(ps) == 1 && ps[0].sent == ps[0].sql {
		sent = text // unchanged, with its comments and spacing
	}
	if !s.c.reject || !dml || unheld {
		s.send(&pgproto3.Query{String: sent}, e)
		return s.fe.Flush()
	}
	// DML refused by DSQL when it crosses the row limit: run it in a
	// transaction the proxy can abort when the count comes back.
	if !open {
		s.send(&pgproto3.Query{String: "BEGIN"}, &expect{kind: 'Q', own: true})
	}
	wait := make(chan held, 1)
	e.dml, e.hold = true, wait
	s.send(&pgproto3.Query{String: sent}, e)
	if err := s.fe.Flush(); err != nil {
		return err
	}
	h, ok := <-wait
	if !ok {
		return io.ErrUnexpectedEOF
	}
	switch {
	case h.crossed:
		s.send(&pgproto3.Query{String: markerQuery(s.marker(errRowLimit))}, &expect{kind: 'Q', own: true, ready: open})
		if !open {
			s.send(&pgproto3.Query{String: "ROLLBACK"}, &expect{kind: 'Q', own: true, ready: true})
		}
	case !open:
		s.send(&pgproto3.Query{String: "COMMIT"}, &expect{kind: 'Q', own: true, ready: true})
	default:
		return s.toClient(h.ready)
	}
	return s.fe.Flush()
}

// translate returns a statement's PostgreSQL form, setting what its
// answer needs said otherwise on e; alone: the query has no other
// statement.
func (s *wireSession) translate(p *part, alone bool, e *expect) string {
	v := p.v
	switch {
	case waitForJob.MatchString(p.sql):
		return waitForJobPG(p.sql)
	case v.asyncDDL != "":
		id, tag := jobOf(p.sql)
		if tag == "ALTER TABLE" {
			s.c.recordJob(p.sql, "") // its failure comes as a warning (serverLoop)
		}
		if id != "" && alone {
			// DSQL answers with the job's id.
			e.dropTags = 1
			e.tag = map[string]string{"SELECT 1": tag}
			return v.asyncDDL + "; " + jobIDQuery(id)
		}
		return v.asyncDDL
	case len(v.dropColumns) > 0 && alone && s.c.reject && s.c.cfg.Enabled("DSQL108"):
		e.tag = map[string]string{"DO": "ALTER TABLE"}
		return keyGuarded(p.sql, v, s.keyMarks(p.sql))
	}
	return s.c.pgText(v, p.sql)
}

// parse checks a statement the client prepares.
func (s *wireSession) parse(m *pgproto3.Parse) error {
	v := s.c.check(m.Query)
	p := &prepared{v: v, sql: m.Query}
	s.stmts[m.Name] = p
	s.c.recordAll(v, m.Query)
	if s.c.reject && v.refusal != nil {
		s.send(&pgproto3.Bind{PreparedStatement: markerName(s.marker(v.refusal))}, &expect{kind: 'P'})
		return nil
	}
	pt := part{sql: m.Query, v: v}
	e := &expect{}
	text := s.translate(&pt, false, e)
	if id, tag := jobOf(m.Query); id != "" {
		p.job, text = text, jobIDQuery(id)
		p.tag = map[string]string{"SELECT 1": tag}
	} else if len(v.dropColumns) > 0 && s.c.reject && s.c.cfg.Enabled("DSQL108") {
		text = keyGuarded(m.Query, v, s.keyMarks(m.Query))
		p.tag = map[string]string{"DO": "ALTER TABLE"}
	}
	s.send(&pgproto3.Parse{Name: m.Name, Query: text, ParameterOIDs: m.ParameterOIDs}, &expect{kind: 'P'})
	return nil
}

// execute checks a statement as it runs, in its transaction.
func (s *wireSession) execute(m *pgproto3.Execute) error {
	p := s.portals[m.Portal]
	if p == nil {
		s.send(m, &expect{kind: 'E'})
		return nil
	}
	if refusal := s.judge(p.v, p.sql); refusal != nil {
		s.send(&pgproto3.Bind{PreparedStatement: markerName(s.marker(refusal))}, &expect{kind: 'E'})
		return nil
	}
	if p.job != "" {
		if asyncAlter.MatchString(p.sql) {
			s.c.recordJob(p.sql, "") // this run's job: failed only if the warning says so
		}
		const name = "dsqlcheck_job"
		s.send(&pgproto3.Parse{Name: name, Query: p.job}, &expect{kind: 'P', own: true})
		s.send(&pgproto3.Bind{DestinationPortal: name, PreparedStatement: name}, &expect{kind: 'B', own: true})
		s.send(&pgproto3.Execute{Portal: name}, &expect{kind: 'E', own: true})
		s.send(&pgproto3.Close{ObjectType: 'S', Name: name}, &expect{kind: 'C', own: true})
	}
	e := &expect{kind: 'E', sql: p.sql, tag: p.tag}
	if s.c.reject && p.v.dml && !copyStatement.MatchString(p.sql) {
		e.dml, s.groupDML = true, true
	}
	s.send(m, e)
	return nil
}

// sync ends a pipeline. When it ran DML and the checker refuses, the
// pipeline's answers are awaited first: a statement that crossed the row
// limit is refused before the Sync commits it.
func (s *wireSession) sync() error {
	if s.groupDML {
		s.groupDML = false
		s.mu.Lock()
		last := s.last
		var wait chan held
		if last != nil && !last.done {
			wait = make(chan held, 1)
			last.hold = wait
		}
		s.mu.Unlock()
		if wait != nil {
			s.fe.Send(&pgproto3.Flush{})
			if err := s.fe.Flush(); err != nil {
				return err
			}
			if _, ok := <-wait; !ok {
				return io.ErrUnexpectedEOF
			}
		}
		s.mu.Lock()
		crossed := s.crossed
		s.crossed = false
		s.mu.Unlock()
		if crossed {
			s.send(&pgproto3.Bind{PreparedStatement: markerName(s.marker(errRowLimit))}, &expect{kind: 'B'})
		}
	}
	s.send(&pgproto3.Sync{}, &expect{kind: 'S'})
	return s.fe.Flush()
}

// serverLoop reads the server's answers and sends the client its own.
func (s *wireSession) serverLoop() error {
	for {
		msg, err := s.fe.Receive()
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.NoticeResponse:
			if rest, ok := strings.CutPrefix(m.Message, jobWarning); ok {
				// An ALTER TABLE ASYNC job failed: sys.jobs says so, the
				// client hears nothing (its statement got a job id).
				id, failure, _ := strings.Cut(rest, ": ")
				s.c.failJob(id, failure)
				continue
			}
			err = s.forward(msg)
		case *pgproto3.NotificationResponse, *pgproto3.ParameterStatus:
			err = s.forward(msg)
		case *pgproto3.ErrorResponse:
			err = s.onError(m)
		case *pgproto3.ReadyForQuery:
			err = s.onReady(m)
		default:
			err = s.onAnswer(msg)
		}
		if err == nil && s.fe.ReadBufferLen() == 0 {
			err = s.flushClient()
		}
		if err != nil {
			return err
		}
	}
}

func (s *wireSession) forward(msg pgproto3.BackendMessage) error {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	s.be.Send(msg)
	return nil
}

func (s *wireSession) flushClient() error {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	return s.be.Flush()
}

// toClient sends a held ReadyForQuery.
func (s *wireSession) toClient(msg pgproto3.BackendMessage) error {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	s.be.Send(msg)
	return s.be.Flush()
}

// pop ends the head expectation; the lock is held.
func (s *wireSession) pop() {
	e := s.pending[0]
	s.pending = s.pending[1:]
	e.done = true
	if e.hold != nil {
		e.hold <- held{crossed: s.crossed}
		e.hold = nil
	}
}

func (s *wireSession) head() *expect {
	if len(s.pending) == 0 {
		return nil
	}
	return s.pending[0]
}

// onAnswer handles an answer that is neither an error nor the end of one.
func (s *wireSession) onAnswer(msg pgproto3.BackendMessage) error {
	s.mu.Lock()
	e := s.head()
	if e == nil {
		s.mu.Unlock()
		return s.forward(msg)
	}
	show := !e.own && !s.dropping
	switch m := msg.(type) {
	case *pgproto3.ParseComplete, *pgproto3.BindComplete, *pgproto3.CloseComplete:
		s.pop()
	case *pgproto3.RowDescription, *pgproto3.NoData:
		if e.kind == 'D' {
			s.pop()
		}
	case *pgproto3.CommandComplete:
		tag := string(m.CommandTag)
		if crossing := s.count(e, tag); crossing && e.dml {
			s.crossed, s.dropping, show = true, true, false
		}
		if e.dropTags > 0 && show {
			e.dropTags--
			show = false
		}
		if to, ok := e.tag[tag]; ok && show {
			msg = &pgproto3.CommandComplete{CommandTag: []byte(to)}
		}
		if e.kind == 'E' {
			s.pop()
		}
	case *pgproto3.EmptyQueryResponse, *pgproto3.PortalSuspended:
		if e.kind == 'E' {
			s.pop()
		}
	}
	s.mu.Unlock()
	if !show {
		return nil
	}
	return s.forward(msg)
}

// count accounts the rows a statement modified (its CommandComplete tag),
// and tells whether they crossed DSQL's row limit under WithReject; the
// lock is held.
func (s *wireSession) count(e *expect, tag string) bool {
	rows, ok := modifiedRows(tag)
	if !ok || e.own {
		return false
	}
	crossed := s.c.modified(&s.st, rows, e.sql, s.c.reject) != nil
	s.st.aborted = nil // the server's transaction is aborted by the refusal, if any
	return crossed
}

// modifiedRows reads the rows of an INSERT, UPDATE, DELETE or MERGE tag.
func modifiedRows(tag string) (int64, bool) {
	for _, verb := range []string{"INSERT ", "UPDATE ", "DELETE ", "MERGE "} {
		if len(tag) > len(verb) && tag[:len(verb)] == verb {
			fields := bytes.Fields([]byte(tag))
			n, err := strconv.ParseInt(string(fields[len(fields)-1]), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// onError handles an ErrorResponse: a marker's becomes DSQL's refusal.
// Outside a simple query, the server now skips the pipeline up to Sync:
// so do the expectations.
func (s *wireSession) onError(m *pgproto3.ErrorResponse) error {
	var out pgproto3.BackendMessage = m
	s.mu.Lock()
	if sm := markerIn.FindStringSubmatch(m.Message); sm != nil {
		n, _ := strconv.Atoi(sm[1])
		if mk, ok := s.markers[n]; ok {
			delete(s.markers, n)
			out = &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: mk.err.Code, Message: mk.err.Message}
			if mk.rule != "" {
				s.c.record(mk.rule, mk.message, mk.sql)
			}
		}
	}
	s.dropping = false
	if e := s.head(); e == nil || e.kind != 'Q' {
		for e := s.head(); e != nil && e.kind != 'S' && e.kind != 'Q'; e = s.head() {
			s.pop()
		}
		if s.head() == nil {
			s.skipping = true
		}
	}
	s.mu.Unlock()
	return s.forward(out)
}

// onReady handles ReadyForQuery: the end of a query or pipeline, with the
// transaction's state, which is the server's and DSQL's alike.
func (s *wireSession) onReady(m *pgproto3.ReadyForQuery) error {
	s.mu.Lock()
	e := s.head()
	var hold chan held
	if e != nil {
		hold, e.hold = e.hold, nil
		s.pending = s.pending[1:]
		e.done = true
	}
	s.dropping = false
	if len(s.pending) == 0 { // a later statement may have begun a transaction already
		switch m.TxStatus {
		case 'I':
			s.st.end()
		default:
			if !s.st.open {
				s.st.begin()
			}
		}
	}
	crossed := s.crossed
	if e != nil && e.kind == 'Q' {
		s.crossed = false
	}
	s.mu.Unlock()
	if hold != nil {
		hold <- held{crossed: crossed, ready: &pgproto3.ReadyForQuery{TxStatus: m.TxStatus}}
		return nil
	}
	if e != nil && e.own && !e.ready {
		return nil
	}
	return s.forward(m)
}
