package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

func init() { bookingCases = append(bookingCases, paymentStateCases...) }

// Ranks of the payment states in the tests (DESIGN.md §4 step 4: failed < authorized <
// captured < refunded).
const (
	rankFailed = iota
	rankAuthorized
	rankCaptured
	rankRefunded
)

// recordState calls RecordPaymentState and fails unless it succeeded with moved == want and the
// returned row is (paymentID, state, rank, eventID).
func recordState(t *testing.T, db *store.DB, s connector.PaymentState, now time.Time, want bool,
	state string, rank int, eventID string) connector.PaymentState {
	t.Helper()
	got, moved, err := db.RecordPaymentState(ctx, s, now)
	if err != nil || moved != want {
		t.Fatalf("RecordPaymentState(%+v) = %v, %v; want moved=%v", s, moved, err, want)
	}
	if got.PaymentID != s.PaymentID || got.State != state || got.Rank != rank || got.EventID != eventID {
		t.Fatalf("RecordPaymentState(%+v) returned %+v; want %s/%d/%s", s, got, state, rank, eventID)
	}
	return got
}

var paymentStateCases = []contractCase{
	{"PaymentStateFirstRecordInserts", func(t *testing.T, b backend) {
		db := b.fresh(t)
		_, err := db.GetPaymentState(ctx, "pay_1")
		wantErr(t, "GetPaymentState(absent)", err, connector.ErrNotFound)
		s := connector.PaymentState{PaymentID: "pay_1", State: "authorized", Rank: rankAuthorized, EventID: "evt_1",
			UpdatedAt: t0.Add(-time.Hour)} // ignored: the store sets UpdatedAt = now
		got := recordState(t, db, s, t0, true, "authorized", rankAuthorized, "evt_1")
		wantTime(t, "UpdatedAt", got.UpdatedAt, t0)
		stored, err := db.GetPaymentState(ctx, "pay_1")
		if err != nil || *stored != got {
			t.Fatalf("GetPaymentState = %+v, %v; want %+v", stored, err, got)
		}
	}},
	{"PaymentStateLowerOrEqualRankDoesNotMove", func(t *testing.T, b backend) {
		db := b.fresh(t)
		first := recordState(t, db, connector.PaymentState{PaymentID: "pay_1", State: "captured", Rank: rankCaptured,
			EventID: "evt_c"}, t0, true, "captured", rankCaptured, "evt_c")
		// A late authorized (lower), a redelivered captured and another event of equal rank.
		for i, s := range []connector.PaymentState{
			{PaymentID: "pay_1", State: "authorized", Rank: rankAuthorized, EventID: "evt_a"},
			{PaymentID: "pay_1", State: "captured", Rank: rankCaptured, EventID: "evt_c"},
			{PaymentID: "pay_1", State: "captured", Rank: rankCaptured, EventID: "evt_c2"},
		} {
			got := recordState(t, db, s, t0.Add(time.Duration(i+1)*time.Minute), false, "captured", rankCaptured, "evt_c")
			if got != first {
				t.Fatalf("after %+v the row is %+v; want it unchanged %+v", s, got, first)
			}
		}
		// The marker of a no-op must not leak into the next statement: a new payment still moves.
		recordState(t, db, connector.PaymentState{PaymentID: "pay_2", State: "failed", Rank: rankFailed, EventID: "evt_f"},
			t0, true, "failed", rankFailed, "evt_f")
		recordState(t, db, connector.PaymentState{PaymentID: "pay_2", State: "failed", Rank: rankFailed, EventID: "evt_f"},
			t0, false, "failed", rankFailed, "evt_f")
		// Negative ranks order like any other.
		recordState(t, db, connector.PaymentState{PaymentID: "pay_3", State: "created", Rank: -1, EventID: "evt_n"},
			t0, true, "created", -1, "evt_n")
		recordState(t, db, connector.PaymentState{PaymentID: "pay_3", State: "older", Rank: -2, EventID: "evt_o"},
			t0, false, "created", -1, "evt_n")
	}},
	{"PaymentStateHigherRankMoves", func(t *testing.T, b backend) {
		db := b.fresh(t)
		id := "pay_1"
		recordState(t, db, connector.PaymentState{PaymentID: id, State: "failed", Rank: rankFailed, EventID: "evt_f"},
			t0, true, "failed", rankFailed, "evt_f")
		recordState(t, db, connector.PaymentState{PaymentID: id, State: "authorized", Rank: rankAuthorized, EventID: "evt_a"},
			t0.Add(time.Minute), true, "authorized", rankAuthorized, "evt_a")
		// Skipping a state is moving forward too.
		later := t0.Add(2 * time.Minute)
		got := recordState(t, db, connector.PaymentState{PaymentID: id, State: "refunded", Rank: rankRefunded, EventID: "evt_r"},
			later, true, "refunded", rankRefunded, "evt_r")
		wantTime(t, "UpdatedAt", got.UpdatedAt, later)
		recordState(t, db, connector.PaymentState{PaymentID: id, State: "captured", Rank: rankCaptured, EventID: "evt_c"},
			t0.Add(3*time.Minute), false, "refunded", rankRefunded, "evt_r")
	}},
	{"PaymentStateConcurrentRecordsEndAtHighest", func(t *testing.T, b backend) {
		db := b.fresh(t)
		const n = 10
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			rank := (i * 7) % n // every rank 0..9 once, not in order
			wg.Go(func() {
				s := connector.PaymentState{PaymentID: "pay_race", State: fmt.Sprintf("s%d", rank), Rank: rank,
					EventID: fmt.Sprintf("evt_%d", rank)}
				got, moved, err := db.RecordPaymentState(ctx, s, t0.Add(time.Duration(rank)*time.Second))
				switch {
				case err != nil:
					errs <- err
				case got.Rank < rank:
					errs <- fmt.Errorf("rank %d: returned %+v, lower than recorded", rank, got)
				case rank == n-1 && !moved:
					errs <- errors.New("the highest rank did not move the state")
				case moved && got.Rank == rank && got.EventID != s.EventID:
					errs <- fmt.Errorf("rank %d moved but the row is %+v", rank, got)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		got, err := db.GetPaymentState(ctx, "pay_race")
		if err != nil || got.Rank != n-1 || got.State != "s9" || got.EventID != "evt_9" {
			t.Fatalf("GetPaymentState = %+v, %v; want rank 9 (s9, evt_9)", got, err)
		}
		wantTime(t, "UpdatedAt", got.UpdatedAt, t0.Add(9*time.Second))
	}},
	{"PaymentStateIdsDifferingByCaseAreDifferentPayments", func(t *testing.T, b backend) {
		db := b.fresh(t)
		recordState(t, db, connector.PaymentState{PaymentID: "pay_AbC", State: "captured", Rank: rankCaptured, EventID: "evt_1"},
			t0, true, "captured", rankCaptured, "evt_1")
		recordState(t, db, connector.PaymentState{PaymentID: "pay_abc", State: "failed", Rank: rankFailed, EventID: "evt_2"},
			t0, true, "failed", rankFailed, "evt_2")
		for id, want := range map[string]string{"pay_AbC": "captured", "pay_abc": "failed"} {
			got, err := db.GetPaymentState(ctx, id)
			if err != nil || got.PaymentID != id || got.State != want {
				t.Fatalf("GetPaymentState(%s) = %+v, %v; want %s", id, got, err, want)
			}
		}
		_, err := db.GetPaymentState(ctx, "PAY_ABC")
		wantErr(t, "GetPaymentState(PAY_ABC)", err, connector.ErrNotFound)
	}},
	{"PaymentStateRefusesBadInput", func(t *testing.T, b backend) {
		db := b.fresh(t)
		for _, s := range []connector.PaymentState{
			{PaymentID: "", State: "captured", Rank: rankCaptured},
			{PaymentID: "pay_1", State: "", Rank: rankCaptured},
			{PaymentID: "pay_1", State: fmt.Sprintf("%033d", 0), Rank: rankCaptured},
		} {
			if _, _, err := db.RecordPaymentState(ctx, s, t0); err == nil || errors.Is(err, connector.ErrStoreUnavailable) {
				t.Fatalf("RecordPaymentState(%+v) err = %v; want a validation error", s, err)
			}
		}
		_, err := db.GetPaymentState(ctx, "pay_1")
		wantErr(t, "GetPaymentState after refusals", err, connector.ErrNotFound)
	}},
}
