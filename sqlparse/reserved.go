package sqlparse

import "strings"

// reserved holds PostgreSQL's keywords that are not unreserved: reserved,
// type or function name, and column name keywords (kwlist.h of the
// PostgreSQL 17 parser pg_query_go v6 embeds; TestReservedMatchesParser
// checks the list against it). An identifier in this set may parse as
// something other than a column or table name.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		all analyse analyze and any array as asc asymmetric authorization
		between bigint binary bit boolean both case cast char character check
		coalesce collate collation column concurrently constraint create cross
		current_catalog current_date current_role current_schema current_time
		current_timestamp current_user dec decimal default deferrable desc
		distinct do else end except exists extract false fetch float for foreign
		freeze from full grant greatest group grouping having ilike in initially
		inner inout int integer intersect interval into is isnull join json
		json_array json_arrayagg json_exists json_object json_objectagg
		json_query json_scalar json_serialize json_table json_value lateral
		leading least left like limit localtime localtimestamp merge_action
		national natural nchar none normalize not notnull null nullif numeric
		offset on only or order out outer overlaps overlay placing position
		precision primary real references returning right row select
		session_user setof similar smallint some substring symmetric system_user
		table tablesample then time timestamp to trailing treat trim true union
		unique user using values varchar variadic verbose when where window with
		xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces
		xmlparse xmlpi xmlroot xmlserialize xmltable
	`) {
		reserved[w] = true
	}
}

// isReserved reports whether the identifier w is in reserved, in any case.
func isReserved(w string) bool {
	if len(w) > 17 { // the longest is current_timestamp
		return false
	}
	var buf [17]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return reserved[string(buf[:len(w)])]
}
