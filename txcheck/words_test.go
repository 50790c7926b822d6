package txcheck

import (
	"regexp"
	"testing"
)

// TestWords: the word scan answers as the case-insensitive expressions
// it replaced, on names and literals retry loops use and on near misses.
func TestWords(t *testing.T) {
	conflict := regexp.MustCompile(`(?i)serializationfail|serialization_fail|serializationerr|serialization fail|serialization error|isocc|occerror|40001`)
	retry := regexp.MustCompile(`(?i)retryable|isretry`)
	for _, s := range []string{
		"", "4", "4000", "40001", `"40001"`, "x40001y", "isSerializationFailure", "IsSerializationFail", "SERIALIZATION_FAILURE",
		"errSerializationErr", `"could not serialize access"`, `"Could Not Serialize"`, "isOCC", "IsOcc", "OCCError", "occerr",
		"serializatio", "serializationFai", `"serialization error"`, `"serialization  fail"`, "isRetryable", "IsRetryableError",
		"isNonRetryable", "RETRYABLE", "isRetry", "IsRetriable", "retry", "shouldRetry", "Retryabl", "pgerrcode.SerializationFailure",
	} {
		if got, want := conflictWords.in(s), conflict.MatchString(s); got != want {
			t.Errorf("conflictWords.in(%q) = %v, the expression says %v", s, got, want)
		}
		if got, want := retryWords.in(s), retry.MatchString(s); got != want {
			t.Errorf("retryWords.in(%q) = %v, the expression says %v", s, got, want)
		}
	}
}
