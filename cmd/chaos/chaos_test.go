package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/pgtest"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// testWriter sends the run's progress lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// The 300-payment chaos run, as `go run ./cmd/chaos --json` makes it: real serve
// processes killed with -9, MariaDB killed once, ERPNext faults, duplicates and reordering.
// Every wait inside is a bounded poll on a condition (inbox idle, /healthz, MariaDB ping).
func TestChaos300Payments(t *testing.T) {
	if testing.Short() {
		t.Skip("a chaos run of real processes (about a minute)")
	}
	if err := haveMariaDB(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must run the chaos test: %v", err)
		}
		t.Skip(err)
	}
	chaos300(t, driverMySQL)
}

// The same run on PostgreSQL (`go run ./cmd/chaos --json --driver postgres`): the replicas
// share a database on a PostgreSQL server of the run's own, and that server (postmaster and
// backends) is killed with -9 once. It runs where the PostgreSQL tests run (TEST_POSTGRES_DSN
// set, as .ci/run sets it), and then needs initdb and postgres installed.
func TestChaos300PaymentsPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("a chaos run of real processes (about a minute)")
	}
	pgtest.DSN(t)
	if err := haveDatabase(driverPostgres); err != nil {
		t.Fatalf("TEST_POSTGRES_DSN is set but the chaos run cannot start PostgreSQL: %v", err)
	}
	chaos300(t, driverPostgres)
}

// chaos300 runs the 300-payment chaos run on driver and checks its books and its chaos.
func chaos300(t *testing.T, driver string) {
	opt := DefaultOptions()
	opt.Driver = driver
	opt.Timeout = 8 * time.Minute
	opt.Progress = testWriter{t}
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.MarshalIndent(rep, "", "  ")
	if !rep.OK {
		t.Fatalf("violations: %v\n%s", rep.Violations, js)
	}
	f, b := rep.Figures, rep.Figures.Books
	// Every receipt is booked, except on an over-paid invoice a payment that arrives after the
	// others have paid it in full: it parks "invoice already settled" (whether one does depends
	// on the order the payments happen to book in; the checker has already verified that the
	// booked ones cover the invoice's total and that the park is counted in the bank side).
	if b.ReceiptsBooked+b.PaymentsParked != 300 || b.ReceiptsExpected != 300 || b.PaymentsParked > f.Scenario.OverpaidInvoices ||
		b.DuplicateEntries != 0 || b.Missing != 0 || b.AmountDifference != 0 {
		t.Fatalf("books: %d of %d receipts (%d parked on settled invoices), %d duplicate entries, %d missing, difference %s\n%s",
			b.ReceiptsBooked, b.ReceiptsExpected, b.PaymentsParked, b.DuplicateEntries, b.Missing, razorpay.INR(int64(b.AmountDifference)).Decimal(), js)
	}
	if b.RefundsBooked != b.RefundsExpected || b.RefundsBooked+b.RefundsParked+b.RefundsNoReceipt != f.Scenario.Refunds {
		t.Fatalf("refunds: %d booked of %d expected (credit note, receipt booked), %d parked without a credit note, %d for want of the receipt, of %d\n%s",
			b.RefundsBooked, b.RefundsExpected, b.RefundsParked, b.RefundsNoReceipt, f.Scenario.Refunds, js)
	}
	if l := f.Logs; l.AttemptsSpentOn429 != 0 {
		t.Fatalf("%d attempts spent on a 429\n%s", l.AttemptsSpentOn429, js)
	}
	// The run must really have been chaotic, or passing proves nothing.
	if f.Kills.Replica < 1 || f.Kills.MariaDB+f.Kills.Postgres != 1 || (driver == driverPostgres) != (f.Kills.Postgres == 1) || f.Timeline.Concurrent == 0 || f.Timeline.Reordered == 0 ||
		f.Sender.Duplicate == 0 || f.Sender.Unavailable == 0 || f.Proxy.Err5xx == 0 || f.Proxy.DropAfterCommit == 0 ||
		f.Proxy.Upstream429 == 0 || f.Scenario.ReceiptOnly == 0 || f.Scenario.OverpaidInvoices == 0 {
		t.Fatalf("the run was not chaotic enough to prove anything:\n%s", js)
	}
	if f.Logs.Lines == 0 || f.Logs.SecretLines != 0 || f.Logs.Panics != 0 {
		t.Fatalf("logs: %+v", f.Logs)
	}
	t.Logf("report:\n%s", js)
}
