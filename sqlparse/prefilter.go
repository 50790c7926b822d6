package sqlparse

// LooksLikeSQL is the cheap test run on every string constant before
// anything else: the first word (after space, comments and opening
// parentheses) must be one that starts an SQL statement, or a clause that
// code appends to one (WHERE, FOR, LOCK). Prose such as "please update the
// record" fails at its first word. It does not allocate.
func LooksLikeSQL(s string) bool {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case isSpace(c) || c == '(':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := i + 2
			for end+1 < len(s) && !(s[end] == '*' && s[end+1] == '/') {
				end++
			}
			i = end + 2
		default:
			return startsStatement(s[i:])
		}
	}
	return false
}

// statementWords are the words a statement, or an appended clause, begins with.
var statementWords = map[string]bool{
	"select": true, "insert": true, "update": true, "delete": true, "with": true,
	"values": true, "table": true, "merge": true, "upsert": true, "replace": true,
	"create": true, "alter": true, "drop": true, "truncate": true, "comment": true,
	"grant": true, "revoke": true, "lock": true, "begin": true, "start": true,
	"commit": true, "end": true, "rollback": true, "abort": true, "savepoint": true,
	"release": true, "prepare": true, "execute": true, "deallocate": true,
	"set": true, "reset": true, "show": true, "listen": true, "notify": true,
	"unlisten": true, "vacuum": true, "analyze": true, "copy": true, "declare": true,
	"fetch": true, "move": true, "close": true, "discard": true, "do": true,
	"call": true, "refresh": true, "reindex": true, "cluster": true, "explain": true,
	"import": true, "security": true, "load": true, "checkpoint": true,
	"where": true, "for": true,
}

func startsStatement(s string) bool {
	var buf [10]byte
	n := 0
	for n < len(s) && n < len(buf) && isIdentStart(s[n]) && s[n] < 0x80 {
		buf[n] = s[n] | 0x20
		n++
	}
	if n == 0 || (n < len(s) && isIdentChar(s[n])) {
		return false
	}
	return statementWords[string(buf[:n])]
}
