package sqlparse

// Migration tools render .sql files, and code renders query constants, as
// Go text/template templates: `CREATE TABLE {{ .Schema }}.jobs (...)`. The
// lexer takes an action outside SQL strings and comments as one
// TokTemplate token; Normalize writes an action that prints something as
// a hole (it stands for a name, as a printf verb does) and blanks the
// others (if, range, end, comments, ...), which print nothing.

// templateEnd returns the end of the text/template action that starts at
// src[i:] == "{{", or false when it is not closed. A failed scan never
// passes another "{{" (a comment's, another comment opener), so repeated
// unclosed "{{" cost time linear in the text.
func templateEnd(src string, i int) (int, bool) {
	j := i + 2
	if trimLeft(src, j) {
		j += 2
	}
	for j < len(src) && isTemplateSpace(src[j]) {
		j++
	}
	if j+1 < len(src) && src[j] == '/' && src[j+1] == '*' {
		return templateCommentEnd(src, j+2)
	}
	for j < len(src) {
		switch c := src[j]; {
		case c == '}' && j+1 < len(src) && src[j+1] == '}':
			return j + 2, true
		case c == '{' && j+1 < len(src) && src[j+1] == '{':
			return 0, false
		case c == '"' || c == '`' || c == '\'':
			end, ok := templateQuoteEnd(src, j)
			if !ok {
				return 0, false
			}
			j = end
		default:
			j++
		}
	}
	return 0, false
}

// templateCommentEnd finishes a comment action {{/* ... */}} from j, just
// after "/*": text/template ends it at the first "*/", which the closing
// delimiter must follow (after an optional " -" trim marker).
func templateCommentEnd(src string, j int) (int, bool) {
	for ; j+1 < len(src); j++ {
		switch {
		case src[j] == '*' && src[j+1] == '/':
			k := j + 2
			if k+1 < len(src) && isTemplateSpace(src[k]) && src[k+1] == '-' {
				k += 2
			}
			if k+1 < len(src) && src[k] == '}' && src[k+1] == '}' {
				return k + 2, true
			}
			return 0, false
		case src[j] == '{' && src[j+1] == '{' && templateCommentAt(src, j):
			return 0, false
		}
	}
	return 0, false
}

// templateCommentAt reports whether a comment action opens at src[i:] == "{{".
func templateCommentAt(src string, i int) bool {
	j := i + 2
	if trimLeft(src, j) {
		j += 2
	}
	for j < len(src) && isTemplateSpace(src[j]) {
		j++
	}
	return j+1 < len(src) && src[j] == '/' && src[j+1] == '*'
}

// templateQuoteEnd returns the end of the Go string or character literal
// inside an action at src[j]. Interpreted strings end at a line break; no
// literal runs past a "{{".
func templateQuoteEnd(src string, j int) (int, bool) {
	q := src[j]
	for k := j + 1; k < len(src); k++ {
		switch c := src[k]; {
		case c == q:
			return k + 1, true
		case c == '\\' && q != '`':
			k++
		case c == '\n' && q != '`':
			return 0, false
		case c == '{' && k+1 < len(src) && src[k+1] == '{':
			return 0, false
		}
	}
	return 0, false
}

// trimLeft reports a left trim marker "- " at src[j:], just after "{{".
func trimLeft(src string, j int) bool {
	return j+1 < len(src) && src[j] == '-' && isTemplateSpace(src[j+1])
}

func isTemplateSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// templatePrints reports whether the action (its text, "{{" to "}}")
// prints a value: a field, a variable, a call, a pipeline. Control
// actions, comments, empty actions and variable declarations or
// assignments print nothing.
func templatePrints(action string) bool {
	body := action[2 : len(action)-2]
	if trimLeft(body, 0) {
		body = body[2:]
	}
	if n := len(body); n >= 2 && body[n-1] == '-' && isTemplateSpace(body[n-2]) {
		body = body[:n-2]
	}
	i := 0
	for i < len(body) && isTemplateSpace(body[i]) {
		i++
	}
	if i == len(body) || (i+1 < len(body) && body[i] == '/' && body[i+1] == '*') {
		return false
	}
	j := i
	if body[j] == '$' {
		// $x := ..., $x = ..., $i, $v := ...: a declaration or assignment.
		for j < len(body) && (body[j] == '$' || body[j] == ',' || isTemplateSpace(body[j]) || isIdentChar(body[j])) {
			j++
		}
		return !(j < len(body) && (body[j] == '=' || (body[j] == ':' && j+1 < len(body) && body[j+1] == '=')))
	}
	for j < len(body) && isIdentChar(body[j]) {
		j++
	}
	switch body[i:j] {
	case "if", "else", "end", "range", "with", "define", "block", "template", "break", "continue":
		return false
	}
	return true
}
