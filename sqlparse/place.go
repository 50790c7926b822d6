package sqlparse

import "strings"

// Place is where a statement falls among the transactions that run a
// text: explicit BEGIN ... COMMIT blocks, the sections and statement groups
// that migration tools mark in comments, and what ran before it in each.
// Whether statements outside blocks share a transaction depends on how the
// text is run (one Exec call, or a migration runner's settings), which the
// rules know and the parser does not.
type Place struct {
	// Block numbers the explicit BEGIN ... COMMIT block the statement is
	// in, from 1; 0 outside blocks.
	Block int
	// Group numbers the goose StatementBegin ... StatementEnd group the
	// statement is in (goose sends a group as one Exec); 0 outside.
	Group int
	// Autocommit marks a file or section that runs each statement on its
	// own whatever the runner's default: goose `-- +goose NO TRANSACTION`,
	// dbmate `transaction:false`, sql-migrate `notransaction`, and sqlc
	// query files (`-- name:`).
	Autocommit bool
	// Section is the migration tool's section the statement is in; nil
	// outside sections.
	Section *Section
	// InBlock holds the first DDL and DML statements earlier in the same
	// block, InGroup in the same goose group, and InRun in the same run of
	// statements outside blocks within the migration section (goose
	// `-- +goose Up` / `Down`, dbmate `-- migrate:up` / `down`).
	InBlock, InGroup, InRun Prior
}

// Section is a section of a migration file that a tool marks and runs:
// goose's `-- +goose Up` / `Down`, dbmate's `-- migrate:up` / `down`,
// sql-migrate's `-- +migrate Up` / `Down`. Each tool runs a section in one
// transaction, unless marked otherwise, and records the migration's
// version in that same transaction.
type Section struct {
	Tool string // goose, dbmate or sql-migrate
	Down bool
	// DDL and DML count the section's statements of each class outside
	// BEGIN ... COMMIT blocks.
	DDL, DML int
}

func (sec *Section) count(c Class) {
	switch c {
	case ClassDDL:
		sec.DDL++
	case ClassDML:
		sec.DML++
	}
}

// WholeSection returns the script as one section of tool, counted as a
// marked section is: for a runner that applies a file whole (pop) and
// records its version in the same transaction.
func WholeSection(s *Script, tool string, down bool) *Section {
	sec := &Section{Tool: tool, Down: down}
	for _, st := range s.Stmts {
		if st.Place.Block == 0 && st.Facts != nil {
			sec.count(st.Facts.Class)
		}
	}
	return sec
}

// Prior is the first DDL and the first DML statement of a set, or nil.
type Prior struct{ DDL, DML *Statement }

func (p *Prior) add(st *Statement, c Class) {
	switch {
	case c == ClassDDL && p.DDL == nil:
		p.DDL = st
	case c == ClassDML && p.DML == nil:
		p.DML = st
	}
}

type markerKind uint8

const (
	markSection markerKind = iota + 1
	markGroupBegin
	markGroupEnd
	markNoTx // the whole file runs without a transaction
)

// marker is a migration-tool annotation comment.
type marker struct {
	off        int
	kind       markerKind
	autocommit bool   // for a section: dbmate transaction:false, sql-migrate notransaction
	tool       string // for a section
	down       bool   // for a section
}

// markers finds the annotation comments of goose, dbmate, sql-migrate and
// sqlc: lines whose first non-blank characters are `--`.
func markers(text string) []marker {
	if !strings.Contains(text, "+goose") && !strings.Contains(text, "migrate") && !strings.Contains(text, "name:") {
		return nil
	}
	var out []marker
	for off := 0; off < len(text); {
		end := lineEnd(text, off)
		line := strings.TrimLeft(text[off:end], " \t")
		if body, ok := strings.CutPrefix(line, "--"); ok {
			body = strings.TrimSpace(body)
			lower := strings.ToLower(body)
			switch {
			case strings.HasPrefix(lower, "+goose "):
				switch words := strings.Join(strings.Fields(lower[len("+goose "):]), " "); words {
				case "up", "down":
					out = append(out, marker{off: off, kind: markSection, tool: "goose", down: words == "down"})
				case "statementbegin":
					out = append(out, marker{off: off, kind: markGroupBegin})
				case "statementend":
					out = append(out, marker{off: off, kind: markGroupEnd})
				case "no transaction":
					out = append(out, marker{off: off, kind: markNoTx})
				}
			case strings.HasPrefix(lower, "migrate:up") || strings.HasPrefix(lower, "migrate:down"):
				out = append(out, marker{off: off, kind: markSection, autocommit: strings.Contains(lower, "transaction:false"),
					tool: "dbmate", down: strings.HasPrefix(lower, "migrate:down")})
			case strings.HasPrefix(lower, "+migrate "):
				switch f := strings.Fields(lower[len("+migrate "):]); {
				case len(f) > 0 && (f[0] == "up" || f[0] == "down"):
					out = append(out, marker{off: off, kind: markSection, autocommit: len(f) > 1 && f[1] == "notransaction",
						tool: "sql-migrate", down: f[0] == "down"})
				case len(f) == 1 && f[0] == "statementbegin":
					out = append(out, marker{off: off, kind: markGroupBegin})
				case len(f) == 1 && f[0] == "statementend":
					out = append(out, marker{off: off, kind: markGroupEnd})
				}
			case isSqlcHeader(body):
				out = append(out, marker{off: off, kind: markNoTx})
			}
		}
		off = end + 1
	}
	return out
}

// SqlcQuery returns the name and command of the sqlc query whose text
// starts at offset at (`-- name: UpdateShard :exec` on a line before it,
// with only comments and blank lines between), or "" when there is none.
func SqlcQuery(text string, at int) (name, cmd string) {
	for end := lineStart(text, at); end > 0; {
		start := lineStart(text, end-1)
		line := strings.TrimSpace(text[start:end])
		if line != "" && !strings.HasPrefix(line, "--") {
			return "", ""
		}
		if body, ok := strings.CutPrefix(line, "--"); ok && isSqlcHeader(strings.TrimSpace(body)) {
			f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(body), "name:"))
			return f[0], f[1]
		}
		end = start
	}
	return "", ""
}

func lineStart(text string, off int) int {
	return strings.LastIndexByte(text[:min(off, len(text))], '\n') + 1
}

// isSqlcHeader matches sqlc's `name: GetAuthor :one` query header.
func isSqlcHeader(body string) bool {
	rest, ok := strings.CutPrefix(body, "name:")
	if !ok {
		return false
	}
	f := strings.Fields(rest)
	return len(f) >= 2 && strings.HasPrefix(f[1], ":") && len(f[1]) > 1
}

// place sets the Place of every statement of s.
func place(s *Script) {
	ms := markers(s.Text)
	if len(s.Stmts) < 2 && len(ms) == 0 {
		return
	}
	fileAuto := false
	// sql-migrate joins every section of one direction into one
	// migration, run in one transaction unless any of them says
	// notransaction. The maps are by direction (down).
	joined := map[bool]*Section{}
	joinedAuto := map[bool]bool{}
	joinedRun := map[bool]Prior{}
	for _, m := range ms {
		if m.kind == markNoTx {
			fileAuto = true
		}
		if m.kind == markSection && m.tool == "sql-migrate" && m.autocommit {
			joinedAuto[m.down] = true
		}
	}
	var (
		group, groups, block, blocks int
		sectionAuto                  bool
		section                      *Section
		inBlock                      Prior
		inGroup                      Prior
		inRun                        Prior
	)
	mi := 0
	for _, st := range s.Stmts {
		for mi < len(ms) && ms[mi].off <= st.Span.Start {
			m := ms[mi]
			mi++
			switch m.kind {
			case markSection:
				if section != nil && section.Tool == "sql-migrate" {
					joinedRun[section.Down] = inRun
				}
				sectionAuto = m.autocommit
				section = &Section{Tool: m.tool, Down: m.down}
				block, group = 0, 0
				inBlock, inGroup, inRun = Prior{}, Prior{}, Prior{}
				if m.tool == "sql-migrate" {
					d := m.down
					if joined[d] == nil {
						joined[d] = section
					}
					section, sectionAuto, inRun = joined[d], joinedAuto[d], joinedRun[d]
				}
			case markGroupBegin:
				groups++
				group = groups
				inGroup = Prior{}
			case markGroupEnd:
				group = 0
			}
		}
		class := ClassNone
		if st.Facts != nil {
			class = st.Facts.Class
		}
		p := Place{Group: group, Autocommit: fileAuto || sectionAuto, Section: section}
		switch class {
		case ClassBegin:
			blocks++
			block = blocks
			inBlock, inRun = Prior{}, Prior{}
			st.Place = p
			continue
		case ClassEnd:
			block = 0
			inRun = Prior{}
			st.Place = p
			continue
		}
		p.Block = block
		if block > 0 {
			p.InBlock = inBlock
			inBlock.add(st, class)
		} else {
			p.InRun = inRun
			inRun.add(st, class)
			if section != nil {
				section.count(class)
			}
		}
		if group > 0 {
			p.InGroup = inGroup
			inGroup.add(st, class)
		}
		st.Place = p
	}
}
