package store_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// The batched look-up cases join the contract suite (run on SQLite and MariaDB).
func init() { bookingCases = append(bookingCases, lookupCases...) }

// manyKeys is more than two chunks of the store's batched look-ups (500 keys per statement),
// so a key lost at a chunk boundary shows.
const manyKeys = 1101

var lookupCases = []contractCase{
	{"BookingsByBusinessKeysAnswersLikeGetBooking", func(t *testing.T, b backend) {
		db := b.fresh(t)
		claimBooking(t, db, newBooking("pay_InFlight", "w1", t0.Add(time.Minute)), t0, true)
		claimBooking(t, db, newBooking("pay_Booked", "w1", t0.Add(time.Minute)), t0, true)
		wantNoErr(t, "FinishBooking", db.FinishBooking(ctx, booked("pay_Booked", "ACC-PAY-2026-00007"), t0.Add(time.Second)))
		wantNoErr(t, "VoidBooking", db.VoidBooking(ctx, connector.Booking{BusinessKey: "rfnd_Void", Kind: connector.KindRefund}, t0))

		got, err := db.BookingsByBusinessKeys(ctx, []string{"pay_Booked", "pay_InFlight", "pay_booked", "pay_Missing",
			"", "rfnd_Void", "pay_InFlight"})
		wantNoErr(t, "BookingsByBusinessKeys", err)
		if len(got) != 3 {
			t.Fatalf("got %d rows %+v; want pay_Booked, pay_InFlight and rfnd_Void only (exact case, no missing key)", len(got), got)
		}
		for _, key := range []string{"pay_Booked", "pay_InFlight", "rfnd_Void"} {
			want, err := db.GetBooking(ctx, key)
			wantNoErr(t, "GetBooking "+key, err)
			if got[key] != *want {
				t.Fatalf("%s = %+v; want what GetBooking answers, %+v", key, got[key], *want)
			}
		}
		if got["pay_Booked"].State != connector.BookingBooked || got["pay_Booked"].Name != "ACC-PAY-2026-00007" ||
			got["pay_InFlight"].State != connector.BookingInFlight || got["rfnd_Void"].State != connector.BookingVoid {
			t.Fatalf("states %+v", got)
		}
		none, err := db.BookingsByBusinessKeys(ctx, nil)
		if err != nil || len(none) != 0 {
			t.Fatalf("no keys = %v, %v; want an empty map", none, err)
		}
	}},
	{"BookingsByBusinessKeysSpansChunks", func(t *testing.T, b backend) {
		db := b.fresh(t)
		keys := make([]string, manyKeys)
		for i := range keys {
			keys[i] = fmt.Sprintf("pay_Chunk%06d", i)
			wantNoErr(t, "VoidBooking", db.VoidBooking(ctx, connector.Booking{BusinessKey: keys[i], Kind: connector.KindReceipt,
				Doctype: "Payment Entry", Name: fmt.Sprintf("ACC-PAY-2026-%05d", i)}, t0))
		}
		got, err := db.BookingsByBusinessKeys(ctx, append(keys, "pay_NotThere"))
		wantNoErr(t, "BookingsByBusinessKeys", err)
		if len(got) != manyKeys {
			t.Fatalf("got %d rows; want %d", len(got), manyKeys)
		}
		for i, key := range keys {
			if got[key].Name != fmt.Sprintf("ACC-PAY-2026-%05d", i) {
				t.Fatalf("%s = %+v", key, got[key])
			}
		}
	}},
	{"EventsByBusinessKeysAnswersLikeFindEventsWithoutBodies", func(t *testing.T, b backend) {
		db := b.fresh(t)
		later := mustInsert(t, db, newEvent("acc_1", "evt_A2", "pay_A", t0.Add(time.Minute)))
		earlier := mustInsert(t, db, newEvent("acc_1", "evt_A1", "pay_A", t0))
		parked := newEvent("acc_1", "evt_B1", "pay_B", t0)
		parked.Status, parked.LastError = connector.StatusParked, "Sales Invoice ACC-SINV-2026-00009 not found"
		parked.ResultDoctype = "Payment Entry"
		mustInsert(t, db, parked)
		mustInsert(t, db, newEvent("acc_1", "evt_a1", "pay_a", t0))       // another key by case
		mustInsert(t, db, newEvent("acc_1", "pay_C", "pay_Other", t0))    // event id equal to a key
		mustInsert(t, db, newEvent("acc_1", "evt_X", "pay_NotAsked", t0)) // not asked for

		got, err := db.EventsByBusinessKeys(ctx, []string{"pay_A", "pay_B", "pay_C", "pay_B", ""})
		wantNoErr(t, "EventsByBusinessKeys", err)
		if len(got) != 2 || len(got["pay_A"]) != 2 || len(got["pay_B"]) != 1 {
			t.Fatalf("got %+v; want two rows of pay_A and one of pay_B (exact case, business key only)", got)
		}
		if got["pay_A"][0].ID != earlier.ID || got["pay_A"][1].ID != later.ID {
			t.Fatalf("pay_A rows %d, %d; want oldest first: %d, %d", got["pay_A"][0].ID, got["pay_A"][1].ID, earlier.ID, later.ID)
		}
		for _, key := range []string{"pay_A", "pay_B"} {
			want, err := db.FindEvents(ctx, key)
			wantNoErr(t, "FindEvents "+key, err)
			for i := range want {
				if len(want[i].RawBody) == 0 {
					t.Fatalf("FindEvents(%s) row %d has no body; the test needs bodies to show they are left out", key, i)
				}
				want[i].RawBody = nil
			}
			if !reflect.DeepEqual(got[key], want) {
				t.Fatalf("%s = %+v; want FindEvents' rows without bodies: %+v", key, got[key], want)
			}
		}
		if b := got["pay_B"][0]; b.Status != connector.StatusParked || b.LastError != parked.LastError || b.ResultDoctype != "Payment Entry" {
			t.Fatalf("pay_B row %+v", b)
		}
	}},
	{"EventsByBusinessKeysSpansChunks", func(t *testing.T, b backend) {
		db := b.fresh(t)
		keys := make([]string, manyKeys)
		for i := range keys {
			keys[i] = fmt.Sprintf("pay_Chunk%06d", i)
			mustInsert(t, db, newEvent("acc_1", fmt.Sprintf("evt_%d", i), keys[i], t0))
		}
		got, err := db.EventsByBusinessKeys(ctx, keys)
		wantNoErr(t, "EventsByBusinessKeys", err)
		if len(got) != manyKeys {
			t.Fatalf("got %d keys; want %d", len(got), manyKeys)
		}
		for i, key := range keys {
			if rows := got[key]; len(rows) != 1 || rows[0].EventID != fmt.Sprintf("evt_%d", i) || rows[0].RawBody != nil {
				t.Fatalf("%s = %+v", key, rows)
			}
		}
	}},
}
