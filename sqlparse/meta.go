package sqlparse

import "strings"

// dsqlSyntax returns a statement's text with DSQL's own syntax blanked out
// so that PostgreSQL's parser accepts it: the ASYNC of CREATE [UNIQUE]
// INDEX ASYNC and ALTER TABLE ASYNC, and the schema of a qualified index
// name (which PostgreSQL rejects too; the model keeps it as a clause).
// Blanks are spaces of the same length, so every offset stays valid.
func dsqlSyntax(text string, toks []Token) string {
	b := &builder{text: text, toks: toks}
	var blank []Span
	if _, async, _, k, ok := b.indexHeader(); ok {
		if async >= 0 {
			blank = append(blank, b.span(async))
		}
		if k >= 0 && (toks[k].Kind == TokIdent || toks[k].Kind == TokQuoted) && !b.word(k, "on") {
			if end := b.nameEnd(k); end != k {
				// Keep the last part: `s.idx` parses as `  idx`.
				blank = append(blank, Span{toks[k].Start, toks[b.prev(end)].End})
			}
		}
	} else if first := significant(toks, 0, 1); b.word(first, "alter") {
		k := b.next(first)
		if b.word(k, "table") && b.word(b.next(k), "async") {
			blank = append(blank, b.span(b.next(k)))
		}
	}
	if len(blank) == 0 {
		return text
	}
	buf := []byte(text)
	for _, s := range blank {
		for i := s.Start; i < s.End; i++ {
			buf[i] = ' '
		}
	}
	return string(buf)
}

// skipPsql returns src with what only psql understands blanked out: lines
// that start with a backslash (meta-commands such as \set, \connect, \i)
// and the data lines of COPY ... FROM stdin up to their \. line, as
// pg_dump writes them. Blanks are spaces (line breaks stay), so every
// offset and line number stays valid. Text without a backslash at the
// start of a line is returned as is, at the cost of one byte search.
func skipPsql(src string) string {
	if !hasMetaLine(src) {
		return src
	}
	buf := []byte(src)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if buf[i] != '\n' && buf[i] != '\r' {
				buf[i] = ' '
			}
		}
	}
	stmtStart, isCopy, stdin := true, false, false
	for i := 0; i < len(src); {
		if src[i] == '\\' && atLineStart(src, i) {
			end := lineEnd(src, i)
			blank(i, end)
			i = end
			continue
		}
		t := lexOne(src, i)
		switch {
		case t.Kind == TokSpace || t.Kind == TokComment:
		case t.Kind == TokPunct && src[t.Start] == ';':
			if isCopy && stdin {
				// The data starts on the next line and ends with a line `\.`.
				data := lineEnd(src, t.End)
				if data < len(src) {
					data++
				}
				end := copyDataEnd(src, data)
				blank(data, end)
				t.End = end
			}
			stmtStart, isCopy, stdin = true, false, false
		default:
			if stmtStart {
				isCopy = t.Kind == TokIdent && strings.EqualFold(t.Text(src), "copy")
				stmtStart = false
			} else if isCopy && t.Kind == TokIdent && strings.EqualFold(t.Text(src), "stdin") {
				stdin = true
			}
		}
		i = t.End
	}
	return string(buf)
}

// hasMetaLine reports whether a backslash starts a line of src.
func hasMetaLine(src string) bool {
	for i := strings.IndexByte(src, '\\'); i >= 0; {
		if atLineStart(src, i) {
			return true
		}
		j := strings.IndexByte(src[i+1:], '\\')
		if j < 0 {
			return false
		}
		i += j + 1
	}
	return false
}

// atLineStart reports whether only blanks precede offset i on its line.
func atLineStart(src string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch src[j] {
		case '\n':
			return true
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	return true
}

// lineEnd returns the offset of the line break ending the line at i, or
// len(src).
func lineEnd(src string, i int) int {
	if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(src)
}

// copyDataEnd returns the end of the line `\.` at or after offset i (the
// end of COPY data), or len(src).
func copyDataEnd(src string, i int) int {
	for i < len(src) {
		end := lineEnd(src, i)
		if strings.TrimSpace(src[i:end]) == `\.` {
			return end
		}
		if end >= len(src) {
			return len(src)
		}
		i = end + 1
	}
	return len(src)
}

// atomicDepth tracks a BEGIN ATOMIC ... END function body across the
// identifier toks[i]: it opens at ATOMIC after BEGIN, counts CASE ... END
// inside, and closes at its own END.
func atomicDepth(src string, toks []Token, i, depth int) int {
	w := toks[i].Text(src)
	switch {
	case depth == 0:
		if strings.EqualFold(w, "atomic") {
			if p := significant(toks, i-1, -1); p >= 0 && toks[p].Kind == TokIdent && strings.EqualFold(toks[p].Text(src), "begin") {
				return 1
			}
		}
	case strings.EqualFold(w, "case"):
		return depth + 1
	case strings.EqualFold(w, "end"):
		return depth - 1
	}
	return depth
}
