package main

import (
	"go/ast"
	"go/token"
	"os"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// source reads the files findings point into, once each.
type source struct {
	files    map[string][]byte
	goFiles  map[string]*ast.File // nil when the file does not parse
	sqlFiles map[string]*sqlparse.Script
}

func newSource() *source {
	return &source{files: map[string][]byte{}, goFiles: map[string]*ast.File{}, sqlFiles: map[string]*sqlparse.Script{}}
}

// content returns a file's bytes, or nil when it cannot be read.
func (s *source) content(name string) []byte {
	data, ok := s.files[name]
	if !ok {
		data, _ = os.ReadFile(name)
		s.files[name] = data
	}
	return data
}

// utf16Column converts a physical position's byte column to UTF-16 code
// units, SARIF's default column unit (and what GitHub expects). It keeps
// the byte column when the file cannot be read or does not match.
func (s *source) utf16Column(p token.Position) int {
	data := s.content(p.Filename)
	start := p.Offset - (p.Column - 1)
	if start < 0 || p.Offset > len(data) {
		return p.Column
	}
	col := 1
	for line := data[start:p.Offset]; len(line) > 0; {
		r, size := utf8.DecodeRune(line)
		line = line[size:]
		col += max(utf16.RuneLen(r), 1)
	}
	return col
}
