package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goodBooks is a small scenario whose books are right: an invoice of ₹1,000.00 paid by
// ₹600.00 + ₹500.00 (an over-payment: ₹1,000.00 allocated, ₹100.00 advance), fees deducted,
// a refund booked against its credit note and one parked for want of a credit note.
func goodBooks() truth {
	p1 := &paymentPlan{ID: "pay_A", Invoice: "SINV-1", Amount: 60000, Fee: 1200}
	p2 := &paymentPlan{ID: "pay_B", Invoice: "SINV-1", Amount: 50000, Fee: 1000}
	p3 := &paymentPlan{ID: "pay_C", Invoice: "SINV-2", Amount: 20000, Fee: 400}
	sc := &scenario{
		Invoices: []*invoicePlan{{Name: "SINV-1", Total: 100000, Payments: []*paymentPlan{p1, p2}},
			{Name: "SINV-2", Total: 30000, Payments: []*paymentPlan{p3}}},
		Payments: []*paymentPlan{p1, p2, p3},
		Refunds: []*refundPlan{{ID: "rfnd_X", PaymentID: "pay_A", Invoice: "SINV-1", Amount: 10000, CreditNote: true},
			{ID: "rfnd_Y", PaymentID: "pay_C", Invoice: "SINV-2", Amount: 5000}},
	}
	return truth{
		Scenario: sc,
		Entries: []erpEntry{
			{Name: "PE-1", Type: "Receive", ReferenceNo: "pay_A", Docstatus: 1, Paid: 58800, Received: 58800, Allocated: map[string]int64{"SINV-1": 60000}},
			{Name: "PE-2", Type: "Receive", ReferenceNo: "pay_B", Docstatus: 1, Paid: 49000, Received: 49000, Allocated: map[string]int64{"SINV-1": 40000}},
			{Name: "PE-3", Type: "Receive", ReferenceNo: "pay_C", Docstatus: 1, Paid: 19600, Received: 19600, Allocated: map[string]int64{"SINV-2": 20000}},
			{Name: "PE-4", Type: "Pay", ReferenceNo: "rfnd_X", Docstatus: 1, Paid: 10000, Received: 10000, Allocated: map[string]int64{"SINV-1-RET": -10000}},
			{Name: "PE-0", Type: "Receive", ReferenceNo: "pay_A", Docstatus: 2, Paid: 58800, Received: 58800}, // cancelled: counts nowhere
		},
		Inbox: []inboxRow{{EventID: "e1", Event: "payment.captured", Key: "pay_A", Status: "done"},
			{EventID: "e2", Event: "payment.captured", Key: "pay_A", Status: "duplicate"},
			{EventID: "e3", Event: "refund.processed", Key: "rfnd_Y", Status: "parked", LastError: "no credit note"}},
		Bookings: []bookingRow{{Key: "pay_A", State: "booked", Name: "PE-1"}, {Key: "pay_B", State: "booked", Name: "PE-2"},
			{Key: "pay_C", State: "booked", Name: "PE-3"}, {Key: "rfnd_X", State: "booked", Name: "PE-4"}},
	}
}

func TestCheckPassesRightBooks(t *testing.T) {
	rep := check(goodBooks())
	if len(rep.Violations) != 0 {
		t.Fatalf("violations on right books: %v", rep.Violations)
	}
	// gross 1,300.00 − fees 26.00 − refunds 150.00 = 1,124.00; the parked refund (50.00) is
	// still in the clearing account: 1,174.00 booked.
	if rep.BankExpected != 112400 || rep.BankActual != 117400 || rep.ParkedAmount != 5000 || rep.AmountDifference != 0 {
		t.Fatalf("bank: expected %d, actual %d, parked %d, difference %d", rep.BankExpected, rep.BankActual, rep.ParkedAmount, rep.AmountDifference)
	}
	if rep.ReceiptsBooked != 3 || rep.RefundsBooked != 1 || rep.RefundsParked != 1 || rep.Missing != 0 || rep.DuplicateEntries != 0 {
		t.Fatalf("counts: %+v", rep)
	}
}

// A refund of a payment that parked (its invoice settled by the others) parks for want of the
// receipt: right books, counted apart; the money of both stays in the clearing account.
func TestCheckAcceptsARefundOfAParkedReceipt(t *testing.T) {
	tr := goodBooks()
	tr.Entries = append(tr.Entries[:2], tr.Entries[3:]...) // pay_C was never booked: it parked
	tr.Bookings = append(tr.Bookings[:2], tr.Bookings[3:]...)
	tr.Scenario.Invoices[1].Total = 0 // so that its park as "settled" is right
	tr.Inbox = append(tr.Inbox, inboxRow{EventID: "e4", Event: "payment.captured", Key: "pay_C", Status: "parked", LastError: "invoice already settled: …"})
	tr.Inbox[2].LastError = "receipt not booked: payment pay_C is not booked; its receipt event e4 is parked (invoice already settled …)"
	rep := check(tr)
	if len(rep.Violations) != 0 || rep.RefundsNoReceipt != 1 || rep.RefundsParked != 0 || rep.AmountDifference != 0 {
		t.Fatalf("violations %v, report %+v", rep.Violations, rep)
	}
}

// Each way the books can be wrong is reported, with the figure it moves.
func TestCheckFindsEachViolation(t *testing.T) {
	cases := []struct {
		name  string
		spoil func(*truth)
		want  string
		moved func(checkReport) bool
	}{
		{"a second entry for a payment", func(t *truth) {
			t.Entries = append(t.Entries, erpEntry{Name: "PE-9", Type: "Receive", ReferenceNo: "pay_C", Docstatus: 1,
				Paid: 19600, Received: 19600, Allocated: map[string]int64{"SINV-2": 10000}})
		}, "duplicate entries: 1", func(r checkReport) bool { return r.DuplicateEntries == 1 && r.AmountDifference == 19600 }},
		{"a payment neither booked nor parked", func(t *truth) {
			t.Entries = t.Entries[1:]
			t.Bookings = t.Bookings[1:]
		}, "missing: 1", func(r checkReport) bool { return r.Missing == 1 }},
		{"an allocation off by a paisa", func(t *truth) { t.Entries[2].Allocated["SINV-2"] = 19999 },
			"invoice allocations: 1", func(r checkReport) bool { return r.InvoiceMismatches == 1 }},
		{"a booking left in flight", func(t *truth) { t.Bookings = append(t.Bookings, bookingRow{Key: "pay_Z", State: "in_flight"}) },
			"bookings left in flight: 1", func(r checkReport) bool { return r.BookingsMismatches == 1 }},
		{"a booking naming another entry", func(t *truth) { t.Bookings[1].Name = "PE-3" },
			"bookings without their entry", func(r checkReport) bool { return r.BookingsMismatches == 2 }},
		{"a dead event", func(t *truth) {
			t.Inbox = append(t.Inbox, inboxRow{EventID: "e4", Key: "pay_B", Status: "dead", LastError: "gave up"})
		}, "dead events: 1", func(r checkReport) bool { return r.Dead == 1 }},
		{"an event still pending", func(t *truth) { t.Inbox[0].Status = "pending" },
			"events not finished: 1", func(r checkReport) bool { return r.NotFinished == 1 }},
		{"a refund booked without a credit note", func(t *truth) {
			t.Inbox = t.Inbox[:2]
			t.Entries = append(t.Entries, erpEntry{Name: "PE-5", Type: "Pay", ReferenceNo: "rfnd_Y", Docstatus: 1, Paid: 5000, Received: 5000})
			t.Bookings = append(t.Bookings, bookingRow{Key: "rfnd_Y", State: "booked", Name: "PE-5"})
		}, "refunds booked without a credit note or receipt: 1", func(r checkReport) bool { return r.AmountDifference == 0 }},
		{"a refund of a booked receipt parked for want of it", func(t *truth) {
			t.Inbox[2].LastError = "receipt not booked: payment pay_C is not booked"
		}, "refunds parked unexpectedly: 1", func(r checkReport) bool { return r.UnexpectedParked == 1 && r.RefundsNoReceipt == 0 }},
		{"a received amount a paisa short", func(t *truth) { t.Entries[0].Received-- },
			"amount difference", func(r checkReport) bool { return r.AmountDifference == -1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := goodBooks()
			c.spoil(&tr)
			rep := check(tr)
			if !strings.Contains(strings.Join(rep.Violations, "\n"), c.want) || !c.moved(rep) {
				t.Fatalf("violations %q, report %+v; want %q", rep.Violations, rep, c.want)
			}
		})
	}
}

func TestPaiseIsExact(t *testing.T) {
	for in, want := range map[string]int64{"1234.5": 123450, "-12.30": -1230, "7": 700, "0.01": 1, "12000.000000": 1200000, ".5": 50} {
		if got, err := paise(in); err != nil || got != want {
			t.Errorf("paise(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"1.005", "abc", "1e3"} {
		if _, err := paise(in); err == nil {
			t.Errorf("paise(%q) succeeded; want an error (never rounded)", in)
		}
	}
}

// Invoice amounts split into payments always add up to what was meant, at least ₹1 each.
func TestSplitPaymentsAddsUp(t *testing.T) {
	rnd := newTestRand()
	for i := 0; i < 2000; i++ {
		total := int64(50000 + i*137)
		m := 1 + i%3
		parts := splitPayments(total, m, rnd)
		var sum int64
		for _, p := range parts {
			if p < 100 {
				t.Fatalf("split of %d into %d: part %d below ₹1 (%v)", total, m, p, parts)
			}
			sum += p
		}
		if len(parts) != m || sum < total*30/100 || sum > total+100+50000 {
			t.Fatalf("split of %d into %d = %v (sum %d)", total, m, parts, sum)
		}
	}
}

func newTestRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// The last payment of an over-paid invoice finds nothing outstanding and parks (DESIGN.md §5):
// accepted, and its money counted as parked. Parked for any other reason, or while the
// invoice is not covered, it is a violation.
func TestCheckParkedPaymentsOnlyWhenTheInvoiceIsSettled(t *testing.T) {
	tr := goodBooks()
	p4 := &paymentPlan{ID: "pay_D", Invoice: "SINV-1", Amount: 7000, Fee: 140}
	tr.Scenario.Payments = append(tr.Scenario.Payments, p4)
	tr.Scenario.Invoices[0].Payments = append(tr.Scenario.Invoices[0].Payments, p4)
	tr.Inbox = append(tr.Inbox, inboxRow{EventID: "e9", Event: "payment.captured", Key: "pay_D", Status: "parked",
		LastError: "invoice already settled: Sales Invoice SINV-1 has outstanding INR 0.00; payment pay_D of INR 70.00 was not booked"})
	rep := check(tr)
	if len(rep.Violations) != 0 || rep.PaymentsParked != 1 || rep.ParkedAmount != 5000-6860 || rep.AmountDifference != 0 {
		t.Fatalf("settled invoice's last payment: violations %v, parked %d, parked amount %d, difference %d",
			rep.Violations, rep.PaymentsParked, rep.ParkedAmount, rep.AmountDifference)
	}
	tr.Inbox[len(tr.Inbox)-1].LastError = "no invoice matched"
	if rep := check(tr); rep.UnexpectedParked != 1 {
		t.Fatalf("parked for another reason: %+v; want one unexpected park", rep)
	}
	tr.Inbox[len(tr.Inbox)-1].LastError = "invoice already settled: …"
	tr.Entries = append(tr.Entries[:1], tr.Entries[2:]...) // pay_B not booked: SINV-1 is not covered
	tr.Bookings = append(tr.Bookings[:1], tr.Bookings[2:]...)
	if rep := check(tr); rep.UnexpectedParked != 1 {
		t.Fatalf("parked as settled while the invoice is not: %+v; want one unexpected park", rep)
	}
}

// The log scan finds secrets (by name, never by value), panics, attempts spent on a 429, and
// how long waits for another worker lasted (and which lasted until the holder's fence).
func TestScanLogs(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"level":"info","event_id":"E1","attempt":1,"status":"pending","reason":"look up Payment Entry by reference_no pay_1: ERPNext 429 TooManyRequestsError","time":"2026-12-01T10:00:00Z","message":"event outcome"}`,
		`{"level":"info","event_id":"E1","attempt":2,"status":"done","reason":"created","time":"2026-12-01T10:00:02Z","message":"event outcome"}`,
		`{"level":"info","event_id":"E2","attempt":1,"status":"pending","reason":"waiting: pay_2 is being booked by another worker (claim fenced until 2026-12-01T10:02:15Z); runs again as soon as it is released","time":"2026-12-01T10:00:00Z","message":"event outcome"}`,
		`{"level":"info","event_id":"E2","attempt":1,"status":"done","reason":"created","time":"2026-12-01T10:00:01Z","message":"event outcome"}`,
		`{"level":"info","event_id":"E3","attempt":1,"status":"pending","reason":"waiting: pay_3 is being booked by another worker (claim fenced until 2026-12-01T10:02:15Z); runs again as soon as it is released","time":"2026-12-01T10:00:00Z","message":"event outcome"}`,
		`{"level":"info","event_id":"E3","attempt":1,"status":"done","reason":"found in ERPNext by reference_no","time":"2026-12-01T10:02:15Z","message":"event outcome"}`,
		`{"level":"info","event_id":"E4","attempt":1,"status":"pending","reason":"waiting for the lock on Sales Invoice SI-1; runs again as soon as it is released","time":"2026-12-01T10:00:00Z","message":"event outcome"}`,
		`{"level":"info","event_id":"E5","attempt":1,"status":"pending","reason":"waiting: pay_5 is being booked by another worker (claim fenced until 2026-12-01T10:00:05Z); runs again as soon as it is released","time":"2026-12-01T10:00:00Z","message":"event outcome"}`,
		`{"level":"info","event_id":"E5","attempt":1,"status":"done","reason":"created","took_ms":19000,"time":"2026-12-01T10:00:20Z","message":"event outcome"}`,
		`{"level":"error","error":"dial tcp: connection refused s3cr3t-value","message":"webhook not stored"}`,
		`panic: runtime error: index out of range`,
	}
	if err := os.WriteFile(filepath.Join(dir, "replica1.log"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// E6 waits after a 429 on replica1, then fails with a 502 on replica2 (attempt 1, counted)
	// and is booked on replica1 (attempt 2) in the same second: no attempt was spent on the 429,
	// though replica1's line sorts first by file.
	if err := os.WriteFile(filepath.Join(dir, "replica0.log"), []byte(strings.Join([]string{
		`{"level":"info","event_id":"E6","attempt":1,"status":"pending","reason":"not now: look up Payment Entry by reference_no pay_6: ERPNext 429 TooManyRequestsError","time":"2026-12-01T10:00:00Z","message":"event outcome"}`,
		`{"level":"info","event_id":"E6","attempt":2,"status":"done","reason":"created","time":"2026-12-01T10:00:10Z","message":"event outcome"}`,
	}, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "replica2.log"), []byte(`{"level":"info","event_id":"E6","attempt":1,"status":"pending","reason":"read Sales Invoice SI-6: ERPNext 502 : Bad Gateway","time":"2026-12-01T10:00:10Z","message":"event outcome"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := scanLogs(dir, map[string]string{"webhook secret": "s3cr3t-value", "unused": "never-there"})
	if err != nil {
		t.Fatal(err)
	}
	// E2 was woken after 1 s, E3 waited until its holder's fence (135 s), E4 is never measured,
	// E5 ran again after 1 s (and was then held 19 s by a rate-limit pause: not a wait).
	if rep.Lines != 14 || rep.ErrorLines != 1 || rep.Panics != 1 || rep.SecretLines != 1 || rep.AttemptsSpentOn429 != 1 ||
		rep.MaxAttempt != 2 || rep.HolderWaits != 4 || rep.FenceWaits != 1 || rep.HolderWaitMaxS != 135 || rep.HolderWaitMedianS != 1 {
		t.Fatalf("scan = %+v", rep)
	}
	if got := strings.Join(rep.SecretsFound, ","); got != "webhook secret in replica1.log:10" || strings.Contains(got, "s3cr3t") {
		t.Fatalf("secrets found = %q; want the name and place, never the value", got)
	}
}
