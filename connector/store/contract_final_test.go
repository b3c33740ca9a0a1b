package store_test

import (
	"errors"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

func init() { bookingCases = append(bookingCases, finalCases...) }

var finalCases = []contractCase{
	{"VoidBookingIsNeverClaimed", func(t *testing.T, b backend) {
		db := b.fresh(t)
		if err := db.VoidBooking(ctx, connector.Booking{BusinessKey: "rfnd_A", Kind: connector.KindRefund}, t0); err != nil {
			t.Fatal(err)
		}
		row, claimed, err := db.ClaimBooking(ctx, newBooking("rfnd_A", "w1", t0.Add(-1)), t0.Add(48*3600e9))
		if err != nil || claimed || row.State != connector.BookingVoid {
			t.Fatalf("claim of a void row: %+v claimed=%v err=%v", row, claimed, err)
		}
	}},
	{"VoidBookingKeepsTheCancelledEntry", func(t *testing.T, b backend) {
		db := b.fresh(t)
		claimBooking(t, db, newBooking("rfnd_B", "w1", t0.Add(60e9)), t0, true)
		if err := db.FinishBooking(ctx, booked("rfnd_B", "ACC-PAY-2026-00009"), t0); err != nil {
			t.Fatal(err)
		}
		if err := db.VoidBooking(ctx, connector.Booking{BusinessKey: "rfnd_B"}, t0); err != nil {
			t.Fatal(err)
		}
		row, err := db.GetBooking(ctx, "rfnd_B")
		if err != nil || row.State != connector.BookingVoid || row.Name != "ACC-PAY-2026-00009" {
			t.Fatalf("row %+v err %v: want void keeping ACC-PAY-2026-00009", row, err)
		}
	}},
	{"BookingsForDocument", func(t *testing.T, b backend) {
		db := b.fresh(t)
		for _, k := range []string{"pay_B", "pay_A"} {
			claimBooking(t, db, newBooking(k, "w1", t0.Add(60e9)), t0, true)
		}
		if err := db.FinishBooking(ctx, booked("pay_A", "ACC-PAY-2026-00001"), t0); err != nil {
			t.Fatal(err)
		}
		rows, err := db.BookingsForDocument(ctx, "Payment Entry", "ACC-PAY-2026-00001")
		if err != nil || len(rows) != 1 || rows[0].BusinessKey != "pay_A" {
			t.Fatalf("rows %+v err %v", rows, err)
		}
		rows, err = db.BookingsForDocument(ctx, "Payment Entry", "ACC-PAY-2026-99999")
		if err != nil || len(rows) != 0 {
			t.Fatalf("rows %+v err %v, want none", rows, err)
		}
	}},
}

func init() {
	inboxCases = append(inboxCases, contractCase{"MarkDuplicatesSparesRefundFailed", func(t *testing.T, b backend) {
		db := b.fresh(t)
		processed := newEvent("acc_1", "evt_processed", "rfnd_1", t0)
		processed.Event = "refund.processed"
		processed = mustInsert(t, db, processed)
		failed := newEvent("acc_1", "evt_failed", "rfnd_1", t0)
		failed.Event = connector.EventRefundFailed
		failed = mustInsert(t, db, failed)
		created := newEvent("acc_1", "evt_created", "rfnd_1", t0)
		created.Event = "refund.created"
		created = mustInsert(t, db, created)
		n, err := db.MarkDuplicates(ctx, "rfnd_1", processed.ID, "Payment Entry ACC-PAY-2026-00002", t0)
		if err != nil || n != 1 {
			t.Fatalf("MarkDuplicates = %d, %v; want 1 (refund.created only)", n, err)
		}
		if got := mustGet(t, db, failed.ID); got.Status != connector.StatusPending {
			t.Fatalf("refund.failed row became %s: it must still reverse the booking", got.Status)
		}
		if got := mustGet(t, db, created.ID); got.Status != connector.StatusDuplicate {
			t.Fatalf("refund.created row is %s, want duplicate", got.Status)
		}
	}})
}

func init() {
	migrateCases = append(migrateCases, contractCase{"NewerSchemaIsRefused", func(t *testing.T, b backend) {
		db := b.fresh(t)
		if _, err := db.SQL().ExecContext(ctx, db.SQL().Rebind(`INSERT INTO schema_migrations (version, applied_at) VALUES ('9999_future', ?)`), "2026-01-01 00:00:00.000000"); err != nil {
			t.Fatal(err)
		}
		if err := db.Migrate(ctx); !errors.Is(err, store.ErrSchemaNewer) {
			t.Errorf("Migrate over a newer schema: %v, want ErrSchemaNewer", err)
		}
		if err := db.Ping(ctx); !errors.Is(err, store.ErrSchemaNewer) {
			t.Errorf("Ping over a newer schema: %v, want ErrSchemaNewer", err)
		}
	}})
}
