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

// bareUtilityWords start a statement that takes just a name: LOCK t,
// NOTIFY ch, VACUUM t, ...
var bareUtilityWords = map[string]bool{
	"lock": true, "notify": true, "listen": true, "unlisten": true, "vacuum": true,
	"analyze": true, "truncate": true, "show": true, "reindex": true, "cluster": true,
	"fetch": true, "move": true, "close": true, "discard": true,
	"release": true, "savepoint": true, "execute": true, "deallocate": true, "reset": true,
}

// BareUtility reports text that is one of those words and one more plain
// word, nothing else: "lock held", "Lock Suite", "notify user", "release
// called", "execute failed", "reset password". It parses,
// but in a Go string of unknown role it is a message or a name far more
// often than a statement; a query argument is judged as SQL all the same.
// A first word in upper case is an SQL keyword as code writes one
// ("TRUNCATE jobs", "LISTEN jobs"), so that text is a statement.
func BareUtility(s string) bool {
	var words [3]string
	n := 0
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case isSpace(c):
			i++
		case isIdentStart(c) && c < 0x80:
			j := i
			for j < len(s) && isIdentChar(s[j]) && s[j] < 0x80 {
				j++
			}
			if n == len(words) {
				return false
			}
			words[n] = s[i:j]
			n++
			i = j
		default:
			return false
		}
	}
	if n != 2 {
		return false
	}
	var buf [10]byte
	w := words[0]
	if len(w) > len(buf) {
		return false
	}
	upper := true
	for i := 0; i < len(w); i++ {
		upper = upper && w[i] >= 'A' && w[i] <= 'Z'
		buf[i] = w[i] | 0x20
	}
	return !upper && bareUtilityWords[string(buf[:len(w)])]
}
