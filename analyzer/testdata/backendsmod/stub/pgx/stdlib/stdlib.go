// Package stdlib stands in for pgx's database/sql driver.
package stdlib
