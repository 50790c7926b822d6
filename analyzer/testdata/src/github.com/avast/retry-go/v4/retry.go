// Package retry is a stub of github.com/avast/retry-go/v4.
package retry

type RetryableFunc func() error

type Option func()

func Do(retryableFunc RetryableFunc, opts ...Option) error { return retryableFunc() }
