package occtest_test

import (
	"context"
	"database/sql"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dsqllint/dsqllint/internal/pgtest"
	"github.com/dsqllint/dsqllint/runtime/occ"
	"github.com/dsqllint/dsqllint/runtime/occprom"
)

func TestMetricsFollowTheCalls(t *testing.T) {
	db, err := sql.Open("pgx", pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE counter (id int PRIMARY KEY, n bigint NOT NULL)",
		"INSERT INTO counter VALUES (1, 0)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	reg := prometheus.NewPedanticRegistry()
	m, err := occprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := occprom.New(reg); err == nil {
		t.Error("registering the metrics twice succeeded")
	}

	// A real 40001: the transaction's snapshot is older than a committed
	// write to the row it updates.
	conflict := func(tx *sql.Tx) error {
		var n int64
		if err := tx.QueryRowContext(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE counter SET n = $1 WHERE id = 1", n)
		return err
	}
	fast := occ.WithConfig(occ.RetryConfig{MaxRetries: 1, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})
	attempt := 0
	conflictOnce := func(tx *sql.Tx) error {
		if attempt++; attempt == 1 {
			return conflict(tx)
		}
		return nil
	}
	if err := occ.RunTxWithRetryVoid(ctx, db, conflictOnce, fast, occ.WithOperation("Lock"), m.Option()); err != nil {
		t.Fatal(err)
	}
	if err := occ.RunTxWithRetryVoid(ctx, db, conflict, fast, occ.WithOperation("Exhaust"), m.Option()); err == nil {
		t.Fatal("no error from a transaction that always conflicts")
	}
	cas := func(tx *sql.Tx) error {
		return occ.ExecCAS(ctx, tx, "UPDATE counter SET n = 0 WHERE id = 1 AND n = -1")
	}
	if err := occ.RunTxWithRetryVoid(ctx, db, cas, fast, occ.WithOperation("CAS"), m.Option()); !occ.IsConditionFailedError(err) {
		t.Fatalf("err = %v, want a condition failure", err)
	}

	want := []string{
		`dsql_condition_failed_total{operation="CAS"} 1`,
		`dsql_errors_total{error_type="condition_failed",operation="CAS"} 1`,
		`dsql_errors_total{error_type="retryable",operation="Exhaust"} 1`,
		`dsql_operation_duration_seconds_count{operation="CAS"} 1`,
		`dsql_operation_duration_seconds_count{operation="Exhaust"} 1`,
		`dsql_operation_duration_seconds_count{operation="Lock"} 1`,
		`dsql_retry_attempts_count{operation="CAS"} 1`,
		`dsql_retry_attempts_count{operation="Exhaust"} 1`,
		`dsql_retry_attempts_count{operation="Lock"} 1`,
		`dsql_retry_attempts_sum{operation="CAS"} 1`,
		`dsql_retry_attempts_sum{operation="Exhaust"} 2`,
		`dsql_retry_attempts_sum{operation="Lock"} 2`,
		`dsql_tx_conflicts_total{operation="Exhaust"} 2`,
		`dsql_tx_conflicts_total{operation="Lock"} 1`,
		`dsql_tx_retries_total{attempt="1",operation="Exhaust",sqlstate="40001"} 1`,
		`dsql_tx_retries_total{attempt="1",operation="Lock",sqlstate="40001"} 1`,
	}
	if got := samples(t, reg); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("metrics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// samples flattens the registry into sorted lines, leaving out histogram
// buckets and durations, which depend on timing.
func samples(t *testing.T, reg *prometheus.Registry) []string {
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+`="`+l.GetValue()+`"`)
			}
			ls := "{" + strings.Join(labels, ",") + "}"
			switch {
			case m.GetCounter() != nil:
				lines = append(lines, f.GetName()+ls+" "+ftoa(m.GetCounter().GetValue()))
			case m.GetHistogram() != nil:
				lines = append(lines, f.GetName()+"_count"+ls+" "+ftoa(float64(m.GetHistogram().GetSampleCount())))
				if f.GetName() == "dsql_retry_attempts" {
					lines = append(lines, f.GetName()+"_sum"+ls+" "+ftoa(m.GetHistogram().GetSampleSum()))
				}
			}
		}
	}
	sort.Strings(lines)
	return lines
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
