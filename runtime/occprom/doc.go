// Package occprom exports the retry loop's events (package occ and occpgx) as
// Prometheus metrics. It is a separate package so that the retry packages
// themselves depend on no metrics library.
//
// Metrics, each labelled with the operation named by occ.WithOperation:
//
//	dsql_tx_retries_total{operation,sqlstate,attempt}  transactions run again after a conflict
//	dsql_tx_conflicts_total{operation}                 attempts that failed with 40001
//	dsql_condition_failed_total{operation}             CAS writes that lost (never retried)
//	dsql_operation_duration_seconds{operation}         whole call, backoff included (histogram)
//	dsql_retry_attempts{operation}                     attempts per call (histogram)
//	dsql_errors_total{operation,error_type}            failed calls by occ.ErrorType
package occprom
