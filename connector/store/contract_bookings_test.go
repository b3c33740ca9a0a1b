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

// newBooking returns a receipt claim on key for owner, fenced until fence.
func newBooking(key, owner string, fence time.Time) connector.Booking {
	return connector.Booking{BusinessKey: key, Kind: connector.KindReceipt, Owner: owner, FenceUntil: fence,
		AmountMinor: 50000, Currency: "INR", Invoice: "ACC-SINV-2026-00001"}
}

// claimBooking calls ClaimBooking and fails unless the claim came out as want.
func claimBooking(t *testing.T, db *store.DB, b connector.Booking, now time.Time, want bool) connector.Booking {
	t.Helper()
	row, claimed, err := db.ClaimBooking(ctx, b, now)
	if err != nil || claimed != want {
		t.Fatalf("ClaimBooking(%s by %s at %v) = %v, %v; want claimed=%v", b.BusinessKey, b.Owner, now, claimed, err, want)
	}
	return row
}

// booked is the document a test books.
func booked(key, name string) connector.Booking {
	return connector.Booking{BusinessKey: key, Kind: connector.KindReceipt, Doctype: "Payment Entry", Name: name,
		AmountMinor: 50000, Currency: "INR", Invoice: "ACC-SINV-2026-00001"}
}

var bookingCases = []contractCase{
	{"ClaimBookingInsertsInFlightRow", func(t *testing.T, b backend) {
		db := b.fresh(t)
		fence := t0.Add(3 * time.Minute)
		row := claimBooking(t, db, newBooking("pay_1", "w1", fence), t0, true)
		if row.BusinessKey != "pay_1" || row.State != connector.BookingInFlight || row.Owner != "w1" ||
			row.Kind != connector.KindReceipt || row.AmountMinor != 50000 || row.Currency != "INR" ||
			row.Invoice != "ACC-SINV-2026-00001" || row.Doctype != "" || row.Name != "" {
			t.Fatalf("claimed row = %+v", row)
		}
		wantTime(t, "FenceUntil", row.FenceUntil, fence)
		wantTime(t, "CreatedAt", row.CreatedAt, t0)
		got, err := db.GetBooking(ctx, "pay_1")
		if err != nil || *got != row {
			t.Fatalf("GetBooking = %+v, %v; want %+v", got, err, row)
		}
		_, err = db.GetBooking(ctx, "pay_missing")
		wantErr(t, "GetBooking(missing)", err, connector.ErrNotFound)
	}},
	{"LiveFenceKeepsOtherOwnersOut", func(t *testing.T, b backend) {
		db := b.fresh(t)
		fence := t0.Add(3 * time.Minute)
		claimBooking(t, db, newBooking("pay_1", "w1", fence), t0, true)
		row := claimBooking(t, db, newBooking("pay_1", "w2", t0.Add(time.Hour)), t0.Add(time.Minute), false)
		if row.Owner != "w1" || !row.FenceUntil.Equal(fence) {
			t.Fatalf("row after a refused claim = %+v", row)
		}
		claimBooking(t, db, newBooking("pay_1", "w2", t0.Add(time.Hour)), fence, false) // the fence itself is live
		row = claimBooking(t, db, newBooking("pay_1", "w1", t0.Add(time.Hour)), t0.Add(time.Minute), true)
		if !row.FenceUntil.Equal(fence) {
			t.Fatalf("re-claim by the holder moved the live fence to %v", row.FenceUntil)
		}
	}},
	{"InFlightRowIsTakenOverOnlyAfterItsFence", func(t *testing.T, b backend) {
		db := b.fresh(t)
		fence := t0.Add(3 * time.Minute)
		claimBooking(t, db, newBooking("pay_1", "w1", fence), t0, true)
		taker := newBooking("pay_1", "w2", fence.Add(5*time.Minute))
		taker.AmountMinor, taker.Invoice = 70000, "ACC-SINV-2026-00002"
		row := claimBooking(t, db, taker, fence.Add(time.Microsecond), true)
		if row.Owner != "w2" || row.State != connector.BookingInFlight || row.AmountMinor != 70000 ||
			row.Invoice != "ACC-SINV-2026-00002" {
			t.Fatalf("taken-over row = %+v", row)
		}
		wantTime(t, "FenceUntil", row.FenceUntil, fence.Add(5*time.Minute))
		wantTime(t, "CreatedAt", row.CreatedAt, t0)
		wantErr(t, "old owner's SetBookingFence", db.SetBookingFence(ctx, "pay_1", "w1", t0.Add(time.Hour)), connector.ErrLeaseLost)
		wantNoErr(t, "old owner's ReleaseBooking", db.ReleaseBooking(ctx, "pay_1", "w1"))
		if got, err := db.GetBooking(ctx, "pay_1"); err != nil || got.Owner != "w2" {
			t.Fatalf("after the old owner's release: %+v, %v", got, err)
		}
	}},
	{"BookedRowIsNeverClaimed", func(t *testing.T, b backend) {
		db := b.fresh(t)
		claimBooking(t, db, newBooking("pay_1", "w1", t0.Add(time.Minute)), t0, true)
		wantNoErr(t, "FinishBooking", db.FinishBooking(ctx, booked("pay_1", "ACC-PAY-2026-00001"), t0.Add(time.Second)))
		row := claimBooking(t, db, newBooking("pay_1", "w2", t0.Add(48*time.Hour)), t0.Add(24*time.Hour), false)
		if row.State != connector.BookingBooked || row.Name != "ACC-PAY-2026-00001" || row.Owner != "w1" {
			t.Fatalf("booked row after a claim = %+v", row)
		}
		row = claimBooking(t, db, newBooking("pay_1", "w1", t0.Add(48*time.Hour)), t0.Add(24*time.Hour), false)
		if row.State != connector.BookingBooked {
			t.Fatalf("booked row reclaimed by its owner: %+v", row)
		}
	}},
	{"FinishBookingRules", func(t *testing.T, b backend) {
		db := b.fresh(t)
		claimBooking(t, db, newBooking("pay_1", "w1", t0.Add(time.Minute)), t0, true)
		doc := booked("pay_1", "ACC-PAY-2026-00001")
		doc.AmountMinor, doc.Owner = 49000, "someone-else"
		wantNoErr(t, "FinishBooking of another owner's in_flight row", db.FinishBooking(ctx, doc, t0.Add(time.Second)))
		got, err := db.GetBooking(ctx, "pay_1")
		if err != nil || got.State != connector.BookingBooked || got.Doctype != "Payment Entry" ||
			got.Name != "ACC-PAY-2026-00001" || got.AmountMinor != 49000 || got.Owner != "w1" {
			t.Fatalf("after FinishBooking: %+v, %v", got, err)
		}
		wantTime(t, "UpdatedAt", got.UpdatedAt, t0.Add(time.Second))
		wantNoErr(t, "FinishBooking again with the same name", db.FinishBooking(ctx, doc, t0.Add(time.Hour)))

		err = db.FinishBooking(ctx, booked("pay_1", "ACC-PAY-2026-00002"), t0.Add(time.Hour))
		if err == nil || errors.Is(err, connector.ErrStoreUnavailable) {
			t.Fatalf("FinishBooking with another name: err = %v; want a plain error", err)
		}
		if got, _ := db.GetBooking(ctx, "pay_1"); got.Name != "ACC-PAY-2026-00001" {
			t.Fatalf("a refused FinishBooking changed the row: %+v", got)
		}
		if err := db.FinishBooking(ctx, booked("pay_1", "acc-pay-2026-00001"), t0); err == nil {
			t.Fatal("FinishBooking with the name in other letter case succeeded; want an error")
		}
		wantErr(t, "FinishBooking without a row", db.FinishBooking(ctx, booked("pay_2", "ACC-PAY-2026-00003"), t0), connector.ErrNotFound)
	}},
	{"SetBookingFenceMovesOnlyTheHoldersFence", func(t *testing.T, b backend) {
		db := b.fresh(t)
		claimBooking(t, db, newBooking("pay_1", "w1", t0.Add(time.Minute)), t0, true)
		fence := t0.Add(125 * time.Second)
		wantNoErr(t, "SetBookingFence", db.SetBookingFence(ctx, "pay_1", "w1", fence))
		wantNoErr(t, "SetBookingFence to the same time", db.SetBookingFence(ctx, "pay_1", "w1", fence))
		claimBooking(t, db, newBooking("pay_1", "w2", t0.Add(time.Hour)), t0.Add(2*time.Minute), false)
		wantErr(t, "SetBookingFence by another owner", db.SetBookingFence(ctx, "pay_1", "w2", fence), connector.ErrLeaseLost)
		wantErr(t, "SetBookingFence without a row", db.SetBookingFence(ctx, "pay_2", "w1", fence), connector.ErrLeaseLost)
		wantNoErr(t, "FinishBooking", db.FinishBooking(ctx, booked("pay_1", "ACC-PAY-1"), t0))
		wantErr(t, "SetBookingFence on a booked row", db.SetBookingFence(ctx, "pay_1", "w1", fence), connector.ErrLeaseLost)
	}},
	{"ReleaseAndForgetBooking", func(t *testing.T, b backend) {
		db := b.fresh(t)
		claimBooking(t, db, newBooking("pay_1", "w1", t0.Add(time.Hour)), t0, true)
		wantNoErr(t, "ReleaseBooking by a non-owner", db.ReleaseBooking(ctx, "pay_1", "w2"))
		wantNoErr(t, "ForgetBooking of an in_flight row", db.ForgetBooking(ctx, "pay_1"))
		claimBooking(t, db, newBooking("pay_1", "w2", t0.Add(time.Hour)), t0, false)
		wantNoErr(t, "ReleaseBooking by the owner", db.ReleaseBooking(ctx, "pay_1", "w1"))
		_, err := db.GetBooking(ctx, "pay_1")
		wantErr(t, "GetBooking after release", err, connector.ErrNotFound)
		wantNoErr(t, "ReleaseBooking of a missing row", db.ReleaseBooking(ctx, "pay_1", "w1"))

		claimBooking(t, db, newBooking("pay_1", "w2", t0.Add(time.Hour)), t0, true)
		wantNoErr(t, "FinishBooking", db.FinishBooking(ctx, booked("pay_1", "ACC-PAY-1"), t0))
		wantNoErr(t, "ReleaseBooking of a booked row", db.ReleaseBooking(ctx, "pay_1", "w2"))
		if got, err := db.GetBooking(ctx, "pay_1"); err != nil || got.State != connector.BookingBooked {
			t.Fatalf("ReleaseBooking removed a booked row: %+v, %v", got, err)
		}
		wantNoErr(t, "ForgetBooking", db.ForgetBooking(ctx, "pay_1"))
		_, err = db.GetBooking(ctx, "pay_1")
		wantErr(t, "GetBooking after forget", err, connector.ErrNotFound)
		wantNoErr(t, "ForgetBooking of a missing row", db.ForgetBooking(ctx, "pay_1"))
		claimBooking(t, db, newBooking("pay_1", "w3", t0.Add(time.Hour)), t0, true)
	}},
	{"BusinessKeysDifferingOnlyInCaseAreDistinct", func(t *testing.T, b backend) {
		db := b.fresh(t)
		claimBooking(t, db, newBooking("pay_KyQ5vx8Bwp8bgk", "w1", t0.Add(time.Hour)), t0, true)
		claimBooking(t, db, newBooking("pay_kyq5vx8bwp8bgk", "w2", t0.Add(time.Hour)), t0, true)
		wantNoErr(t, "FinishBooking", db.FinishBooking(ctx, booked("pay_kyq5vx8bwp8bgk", "ACC-PAY-1"), t0))
		if got, _ := db.GetBooking(ctx, "pay_KyQ5vx8Bwp8bgk"); got.State != connector.BookingInFlight {
			t.Fatalf("FinishBooking touched the other key: %+v", got)
		}
	}},
	{"ConcurrentClaimBookingHasOneWinner", func(t *testing.T, b backend) {
		dsn := b.newDatabase(t)
		replicas := []*store.DB{b.open(t, dsn), b.open(t, dsn)}
		wantNoErr(t, "Migrate", replicas[0].Migrate(ctx))
		for round, now := range []time.Time{t0, t0.Add(time.Hour)} { // insert race, then takeover race
			const claimers = 10
			var (
				wg     sync.WaitGroup
				mu     sync.Mutex
				winner []string
				owners = map[string]bool{}
				errs   = make(chan error, claimers)
			)
			for i := 0; i < claimers; i++ {
				wg.Add(1)
				go func(db *store.DB, owner string) {
					defer wg.Done()
					row, claimed, err := db.ClaimBooking(ctx, newBooking("pay_1", owner, now.Add(time.Minute)), now)
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					defer mu.Unlock()
					owners[row.Owner] = true
					if claimed {
						winner = append(winner, owner)
					}
				}(replicas[i%2], fmt.Sprintf("r%d-w%d", round, i))
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if len(winner) != 1 || len(owners) != 1 || !owners[winner[0]] {
				t.Fatalf("round %d: winners %v, owners seen %v; want exactly one", round, winner, owners)
			}
		}
	}},
}
