// Package errors is a stub of github.com/pkg/errors.
package errors

import "fmt"

func Errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

func Wrapf(err error, format string, args ...any) error { return fmt.Errorf(format, args...) }
