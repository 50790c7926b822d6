// Package backoff is a stub of github.com/cenkalti/backoff/v4.
package backoff

type Operation func() error

type BackOff interface{ NextBackOff() }

type ExponentialBackOff struct{}

func (*ExponentialBackOff) NextBackOff() {}

func NewExponentialBackOff() *ExponentialBackOff { return &ExponentialBackOff{} }

func Retry(o Operation, b BackOff) error { return o() }
