package store_test

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/pgtest"
)

// The console queries (console.go) on every database, case by case like the contract suite.
func TestConsoleQueriesSQLite(t *testing.T)  { runConsoleCases(t, sqliteBackend) }
func TestConsoleQueriesMariaDB(t *testing.T) { runConsoleCases(t, mariadbBackend) }
func TestConsoleQueriesPostgres(t *testing.T) {
	pgtest.DSN(t)
	runConsoleCases(t, postgresBackend)
}

func runConsoleCases(t *testing.T, b backend) {
	for _, c := range consoleCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, b)
		})
	}
}

// seedSearch stores five rows: two parked payments (one naming its invoice in notes), a done
// payment booked against an invoice, a dismissed refund, and a reconcile row. It returns them
// in insertion order (received one minute apart from t0).
func seedSearch(t *testing.T, db *store.DB) []*connector.InboxEvent {
	t.Helper()
	rows := []*connector.InboxEvent{
		{AccountID: "acc_1", EventID: "EvtParked00001", Event: "payment.captured", BusinessKey: "pay_Parked00001",
			RawBody: []byte(`{"payload":{"payment":{"entity":{"notes":{"invoice":"ACC-SINV-2026-00010"}}}}}`)},
		{AccountID: "acc_1", EventID: "EvtParked00002", Event: "payment.captured", BusinessKey: "pay_Parked00002",
			RawBody: []byte(`{"payload":{"payment":{"entity":{"notes":{"invoice":"ACC-SINV-2026-0001"}}}}}`)},
		{AccountID: "acc_1", EventID: "EvtDone0000001", Event: "order.paid", BusinessKey: "pay_Done00000001", RawBody: nil},
		{AccountID: "acc_1", EventID: "EvtRefund00001", Event: "refund.processed", BusinessKey: "rfnd_Refund000001",
			RawBody: []byte(`{}`), LastError: "Credit note for ACC-SINV-2026-00010 not found"},
		{AccountID: "acc_1", EventID: "reconcile:pay_Recon0000001", Event: "payment.captured", BusinessKey: "pay_Recon0000001",
			RawBody: []byte(`{}`)},
	}
	for i, r := range rows {
		r.ReceivedAt = t0.Add(time.Duration(i) * time.Minute)
		mustInsert(t, db, r)
	}
	set := func(id int64, status connector.Status, reason string) {
		wantNoErr(t, "SetEventStatus", db.SetEventStatus(ctx, id, status, reason, t0.Add(time.Hour)))
	}
	set(rows[0].ID, connector.StatusParked, "no invoice matched: ACC-SINV-2026-00010 does not exist")
	set(rows[1].ID, connector.StatusParked, "no invoice matched")
	set(rows[2].ID, connector.StatusDone, "")
	set(rows[3].ID, connector.StatusDismissed, "")
	claimBooking(t, db, connector.Booking{BusinessKey: "pay_Done00000001", Kind: connector.KindReceipt, Owner: "w1",
		FenceUntil: t0.Add(time.Hour), AmountMinor: 1200000, Currency: "INR", Invoice: "ACC-SINV-2026-00003"}, t0, true)
	wantNoErr(t, "FinishBooking", db.FinishBooking(ctx, connector.Booking{BusinessKey: "pay_Done00000001",
		Kind: connector.KindReceipt, Doctype: "Payment Entry", Name: "ACC-PAY-2026-00007", AmountMinor: 1200000,
		Currency: "INR", Invoice: "ACC-SINV-2026-00003"}, t0))
	_, err := db.SQL().ExecContext(ctx, db.SQL().Rebind(`UPDATE inbox SET result_doctype = 'Payment Entry', result_name = 'ACC-PAY-2026-00007' WHERE id = ?`), rows[2].ID)
	wantNoErr(t, "set result", err)
	return rows
}

// eventIDs lists the event ids of rows, in order.
func eventIDs(rows []store.EventSummary) []string {
	ids := []string{}
	for _, r := range rows {
		ids = append(ids, r.EventID)
	}
	return ids
}

var consoleCases = []contractCase{
	{"SearchEventsFilters", func(t *testing.T, b backend) {
		db := b.fresh(t)
		seedSearch(t, db)
		for _, c := range []struct {
			name string
			q    store.EventQuery
			want []string
		}{
			{"All", store.EventQuery{}, []string{"reconcile:pay_Recon0000001", "EvtRefund00001", "EvtDone0000001", "EvtParked00002", "EvtParked00001"}},
			{"Status", store.EventQuery{Status: connector.StatusParked}, []string{"EvtParked00002", "EvtParked00001"}},
			{"EventType", store.EventQuery{Event: "order.paid"}, []string{"EvtDone0000001"}},
			{"FromInclusiveToExclusive", store.EventQuery{From: t0.Add(time.Minute), To: t0.Add(3 * time.Minute)}, []string{"EvtDone0000001", "EvtParked00002"}},
			{"KeyIsPaymentID", store.EventQuery{Key: "pay_Parked00001"}, []string{"EvtParked00001"}},
			{"KeyIsEventID", store.EventQuery{Key: "EvtRefund00001"}, []string{"EvtRefund00001"}},
			{"KeyIsResultDocument", store.EventQuery{Key: "ACC-PAY-2026-00007"}, []string{"EvtDone0000001"}},
			{"KeyIsExactCase", store.EventQuery{Key: "PAY_PARKED00001"}, []string{}},
			{"InvoiceOfBooking", store.EventQuery{Invoice: "ACC-SINV-2026-00003"}, []string{"EvtDone0000001"}},
			// Named in a body (quoted, so …-0001 is not a prefix match of …-00010) or a reason.
			{"InvoiceInBodyOrReason", store.EventQuery{Invoice: "ACC-SINV-2026-00010"}, []string{"EvtRefund00001", "EvtParked00001"}},
			{"InvoiceShortNameIsNotAPrefixMatch", store.EventQuery{Invoice: "ACC-SINV-2026-0001"}, []string{"EvtParked00002"}},
			{"InvoiceExactCase", store.EventQuery{Invoice: "acc-sinv-2026-00010"}, []string{}},
			{"Combined", store.EventQuery{Status: connector.StatusParked, Invoice: "ACC-SINV-2026-00010"}, []string{"EvtParked00001"}},
			{"LimitOffset", store.EventQuery{Limit: 2, Offset: 1}, []string{"EvtRefund00001", "EvtDone0000001"}},
			{"OffsetWithoutLimit", store.EventQuery{Offset: 4}, []string{"EvtParked00001"}},
		} {
			got, err := db.SearchEvents(ctx, c.q)
			if err != nil {
				t.Fatalf("%s: SearchEvents: %v", c.name, err)
			}
			if ids := eventIDs(got); !reflect.DeepEqual(ids, c.want) {
				t.Errorf("%s: SearchEvents(%+v) = %v; want %v", c.name, c.q, ids, c.want)
			}
		}
	}},
	{"SearchEventsRowShape", func(t *testing.T, b backend) {
		db := b.fresh(t)
		seeded := seedSearch(t, db)
		got, err := db.SearchEvents(ctx, store.EventQuery{Key: "pay_Done00000001"})
		if err != nil || len(got) != 1 {
			t.Fatalf("SearchEvents = %v, %v", got, err)
		}
		r := got[0]
		if r.ID != seeded[2].ID || r.Status != connector.StatusDone || r.ResultName != "ACC-PAY-2026-00007" ||
			r.ResultDoctype != "Payment Entry" || r.BusinessKey != "pay_Done00000001" || r.RawBody != nil || !r.BodyPurged {
			t.Fatalf("row = %+v", r)
		}
		wantTime(t, "ReceivedAt", r.ReceivedAt, t0.Add(2*time.Minute))
		got, err = db.SearchEvents(ctx, store.EventQuery{Key: "pay_Parked00001"})
		if err != nil || len(got) != 1 || got[0].BodyPurged || got[0].RawBody != nil ||
			got[0].LastError != "no invoice matched: ACC-SINV-2026-00010 does not exist" {
			t.Fatalf("parked row = %+v, %v", got, err)
		}
	}},
	{"SumBookingsPerBucketAndCurrency", func(t *testing.T, b backend) {
		db := b.fresh(t)
		book := func(key, kind, currency string, amount int64, at time.Time) {
			t.Helper()
			claimBooking(t, db, connector.Booking{BusinessKey: key, Kind: kind, Owner: "w1", FenceUntil: at.Add(time.Hour),
				AmountMinor: amount, Currency: currency}, at, true)
			wantNoErr(t, "FinishBooking", db.FinishBooking(ctx, connector.Booking{BusinessKey: key, Doctype: "Payment Entry",
				Name: "PE-" + key, AmountMinor: amount, Currency: currency}, at))
		}
		day := 24 * time.Hour
		bounds := []time.Time{t0, t0.Add(day), t0.Add(2 * day), t0.Add(3 * day)}
		book("pay_a", connector.KindReceipt, "INR", 1200000, t0)                                              // first instant: bucket 0
		book("pay_b", connector.KindReceipt, "INR", 50001, t0.Add(day-time.Microsecond))                      // last instant of bucket 0
		book("pay_c", connector.KindReceipt, "USD", 1999, t0.Add(day))                                        // bucket 1
		book("pay_d", connector.KindReceipt, "INR", 700, t0.Add(2*day+time.Hour))                             // bucket 2
		book("pay_e", connector.KindReceipt, "INR", 999999, t0.Add(3*day))                                    // past the end
		book("pay_f", connector.KindReceipt, "INR", 888888, t0.Add(-time.Microsecond))                        // before the start
		book("rfnd_g", connector.KindRefund, "INR", 300, t0.Add(time.Hour))                                   // another kind
		claimBooking(t, db, connector.Booking{BusinessKey: "pay_h", Kind: connector.KindReceipt, Owner: "w1", // in flight
			FenceUntil: t0.Add(time.Hour), AmountMinor: 5, Currency: "INR"}, t0.Add(time.Hour), true)
		got, err := db.SumBookings(ctx, connector.KindReceipt, bounds)
		want := []store.BookedSum{{0, "INR", 1250001, 2}, {1, "USD", 1999, 1}, {2, "INR", 700, 1}}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("SumBookings(receipt) = %+v, %v; want %+v", got, err, want)
		}
		got, err = db.SumBookings(ctx, connector.KindRefund, bounds[:2])
		if want := []store.BookedSum{{0, "INR", 300, 1}}; err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("SumBookings(refund) = %+v, %v; want %+v", got, err, want)
		}
		if _, err := db.SumBookings(ctx, connector.KindReceipt, bounds[:1]); err == nil {
			t.Error("SumBookings with one bound: no error")
		}
		if _, err := db.SumBookings(ctx, connector.KindReceipt, []time.Time{t0, t0}); err == nil {
			t.Error("SumBookings with equal bounds: no error")
		}
	}},
	{"SumReceiptFeesFromTheBookedEventsBodies", func(t *testing.T, b backend) {
		db := b.fresh(t)
		day := 24 * time.Hour
		receipt := func(key string, fee int64, bearer string, at time.Time, status connector.Status, result string) {
			t.Helper()
			claimBooking(t, db, connector.Booking{BusinessKey: key, Kind: connector.KindReceipt, Owner: "w1", FenceUntil: at.Add(time.Hour),
				AmountMinor: 100000, Currency: "INR"}, at, true)
			wantNoErr(t, "FinishBooking", db.FinishBooking(ctx, connector.Booking{BusinessKey: key, Doctype: "Payment Entry",
				Name: "PE-" + key, AmountMinor: 100000, Currency: "INR"}, at))
			p := `{"id":"` + key + `","amount":100000`
			if fee >= 0 {
				p += `,"fee":` + strconv.FormatInt(fee, 10)
			}
			if bearer != "" {
				p += `,"fee_bearer":"` + bearer + `"`
			}
			e := newEvent("acc_1", "evt_"+key, key, at)
			e.RawBody = []byte(`{"event":"payment.captured","payload":{"payment":{"entity":` + p + `}}}}`)
			e.Status, e.ResultDoctype, e.ResultName = status, "Payment Entry", result
			mustInsert(t, db, e)
		}
		receipt("pay_a", 2360, "", t0, connector.StatusDone, "PE-pay_a")
		receipt("pay_b", 1180, "platform", t0.Add(time.Hour), connector.StatusDone, "PE-pay_b")
		receipt("pay_c", 5000, "customer", t0.Add(2*time.Hour), connector.StatusDone, "PE-pay_c") // the customer paid it
		receipt("pay_d", -1, "", t0.Add(3*time.Hour), connector.StatusDone, "PE-pay_d")           // no fee in the body
		receipt("pay_e", 700, "", t0.Add(day), connector.StatusDone, "PE-pay_e")
		receipt("pay_f", 900, "", t0.Add(day+time.Hour), connector.StatusDuplicate, "") // not the row that booked it
		got, err := db.SumReceiptFees(ctx, []time.Time{t0, t0.Add(day), t0.Add(2 * day)})
		if want := []store.BookedSum{{0, "INR", 3540, 2}, {1, "INR", 700, 1}}; err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("SumReceiptFees = %+v, %v; want %+v", got, err, want)
		}
		if _, err := db.SumReceiptFees(ctx, []time.Time{t0}); err == nil {
			t.Error("SumReceiptFees with one bound: no error")
		}
	}},
	{"WebhookActivityCountsWebhooksApartFromReconcileRows", func(t *testing.T, b backend) {
		db := b.fresh(t)
		a, err := db.WebhookActivity(ctx, t0)
		if err != nil || a != (store.WebhookActivity{}) {
			t.Fatalf("empty store: %+v, %v", a, err)
		}
		seedSearch(t, db) // webhooks at t0 … t0+3m, a reconcile row at t0+4m
		a, err = db.WebhookActivity(ctx, t0.Add(time.Minute))
		if err != nil || a.Webhooks != 3 || a.ReconcileRows != 1 {
			t.Fatalf("WebhookActivity = %+v, %v; want 3 webhooks, 1 reconcile row", a, err)
		}
		wantTime(t, "Last", a.Last, t0.Add(3*time.Minute))
		a, err = db.WebhookActivity(ctx, t0.Add(time.Hour))
		if err != nil || a.Webhooks != 0 || a.ReconcileRows != 0 {
			t.Fatalf("WebhookActivity(later) = %+v, %v", a, err)
		}
		wantTime(t, "Last (none since)", a.Last, t0.Add(3*time.Minute))
	}},
}
