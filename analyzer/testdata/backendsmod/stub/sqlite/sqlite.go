// Package sqlite stands in for a SQLite driver.
package sqlite
