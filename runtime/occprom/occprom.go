package occprom

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dsqllint/dsqllint/runtime/occ"
)

// Metrics holds the collectors and the hooks that feed them.
type Metrics struct {
	retries         *prometheus.CounterVec
	conflicts       *prometheus.CounterVec
	conditionFailed *prometheus.CounterVec
	duration        *prometheus.HistogramVec
	attempts        *prometheus.HistogramVec
	errors          *prometheus.CounterVec
	option          occ.Option
}

// New creates the metrics and registers them with reg (pass
// prometheus.DefaultRegisterer for the global registry). It fails if they are
// already registered there.
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dsql_tx_retries_total",
			Help: "Transactions run again after a serialization failure, by the SQLSTATE and the attempt that failed.",
		}, []string{"operation", "sqlstate", "attempt"}),
		conflicts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dsql_tx_conflicts_total",
			Help: "Transaction attempts that failed with SQLSTATE 40001 (OCC conflict), retried or not.",
		}, []string{"operation"}),
		conditionFailed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dsql_condition_failed_total",
			Help: "Compare-and-set writes that matched no row (ownership lost); never retried.",
		}, []string{"operation"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "dsql_operation_duration_seconds",
			Help:    "Duration of a retried transaction call, all attempts and backoff included.",
			Buckets: prometheus.DefBuckets,
		}, []string{"operation"}),
		attempts: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "dsql_retry_attempts",
			Help:    "Attempts made per transaction call.",
			Buckets: prometheus.LinearBuckets(1, 1, 10),
		}, []string{"operation"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dsql_errors_total",
			Help: "Transaction calls that failed, by error type (retryable, condition_failed, unsupported_feature, permanent).",
		}, []string{"operation", "error_type"}),
	}
	for _, c := range []prometheus.Collector{m.retries, m.conflicts, m.conditionFailed, m.duration, m.attempts, m.errors} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	m.option = occ.WithHooks(occ.Hooks{
		OnRetry: func(e occ.Event) {
			m.retries.WithLabelValues(e.Operation, e.SQLState, strconv.Itoa(e.Attempt)).Inc()
		},
		OnConflict: func(e occ.Event) {
			m.conflicts.WithLabelValues(e.Operation).Inc()
		},
		OnConditionFailed: func(e occ.Event) {
			m.conditionFailed.WithLabelValues(e.Operation).Inc()
		},
		OnDone: func(e occ.Event) {
			m.duration.WithLabelValues(e.Operation).Observe(e.Duration.Seconds())
			m.attempts.WithLabelValues(e.Operation).Observe(float64(e.Attempt))
			if e.Err != nil {
				m.errors.WithLabelValues(e.Operation, e.ErrorType.String()).Inc()
			}
		},
	})
	return m, nil
}

// Option records a call's events in m. Pass it to occ.RunTxWithRetry or
// occpgx.RunTxWithRetry together with occ.WithOperation; it combines with
// other occ.WithHooks options.
func (m *Metrics) Option() occ.Option { return m.option }
