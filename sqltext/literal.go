package sqltext

import "go/token"

// Kind is how a literal spells its bytes.
type Kind uint8

const (
	Interpreted Kind = iota // "..." with escapes
	Raw                     // `...`, carriage returns dropped
	File                    // a .sql file: bytes as they are
)

// Literal is one stretch of source whose bytes make up SQL text[Start:End].
type Literal struct {
	Kind       Kind
	Start, End int
	// Pos is the source position Offs are relative to.
	Pos token.Pos
	// Offs[i] is the source offset, from Pos, of text byte Start+i; it has
	// one more element for End. Nil means byte for byte from Pos.
	Offs []int
}

// Offset is the source offset, from Pos, of SQL text byte textOff.
func (l Literal) Offset(textOff int) int {
	if l.Offs == nil {
		return textOff - l.Start
	}
	return l.Offs[textOff-l.Start]
}
