// Package file stands in for golang-migrate's file source.
package file
