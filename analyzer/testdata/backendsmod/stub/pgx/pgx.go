// Package pgx stands in for pgx: only its import path matters here.
package pgx
