package store_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// benchBackends are the engines every store benchmark runs on.
var benchBackends = []struct {
	name string
	backend
}{{"sqlite", sqliteBackend}, {"mariadb", mariadbBackend}, {"postgres", postgresBackend}}

// benchBody is a ~1 KiB raw body, the size of a payment.captured envelope.
func benchBody() []byte {
	body := make([]byte, 1024)
	for i := range body {
		body[i] = 'a' + byte(i%26)
	}
	return body
}

// BenchmarkInsertEvent measures one webhook's intake write (InsertEvent of a ~1 KiB body) on
// each driver, one caller at a time.
func BenchmarkInsertEvent(b *testing.B) {
	body := benchBody()
	for _, be := range benchBackends {
		b.Run(be.name, func(b *testing.B) {
			db := be.fresh(b)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e := newEvent("acc_1", fmt.Sprintf("evt_%d", i), fmt.Sprintf("pay_%d", i), t0.Add(time.Duration(i)))
				e.RawBody = body
				if inserted, err := db.InsertEvent(ctx, e); err != nil || !inserted {
					b.Fatalf("InsertEvent = %v, %v", inserted, err)
				}
			}
		})
	}
}

// BenchmarkInsertEventConcurrent is BenchmarkInsertEvent with 8 and 32 callers at once, as
// intake runs under load: the per-statement overhead (prepare, round trips, parsing) shows
// here, where commits of many connections share the disk's flushes.
func BenchmarkInsertEventConcurrent(b *testing.B) {
	body := benchBody()
	for _, be := range benchBackends {
		for _, callers := range []int{8, 32} {
			b.Run(fmt.Sprintf("%s/c%d", be.name, callers), func(b *testing.B) {
				db := be.fresh(b)
				var seq atomic.Int64
				b.ReportAllocs()
				b.SetParallelism(max(1, callers/runtime.GOMAXPROCS(0)))
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						i := seq.Add(1)
						e := newEvent("acc_1", fmt.Sprintf("evt_%d", i), fmt.Sprintf("pay_%d", i), t0.Add(time.Duration(i)))
						e.RawBody = body
						if inserted, err := db.InsertEvent(ctx, e); err != nil || !inserted {
							b.Errorf("InsertEvent = %v, %v", inserted, err)
							return
						}
					}
				})
			})
		}
	}
}

// lookupKeys seeds n business keys as reconcile meets them: every key booked, every key with
// one done inbox row carrying a ~1 KiB raw body. It returns the keys.
func lookupKeys(b *testing.B, db *store.DB, n int) []string {
	b.Helper()
	body := benchBody()
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("pay_Bench%09d", i)
		e := newEvent("acc_1", fmt.Sprintf("evt_%d", i), keys[i], t0)
		e.RawBody, e.Status = body, connector.StatusDone
		if _, err := db.InsertEvent(ctx, e); err != nil {
			b.Fatal(err)
		}
		bk := connector.Booking{BusinessKey: keys[i], Kind: connector.KindReceipt, Owner: "w1", FenceUntil: t0}
		if _, _, err := db.ClaimBooking(ctx, bk, t0); err != nil {
			b.Fatal(err)
		}
		bk.Doctype, bk.Name = "Payment Entry", fmt.Sprintf("ACC-PAY-2026-%05d", i)
		if err := db.FinishBooking(ctx, bk, t0); err != nil {
			b.Fatal(err)
		}
	}
	return keys
}

// BenchmarkReconcileLookupPerKey is what reconcile does today per listed payment: GetBooking,
// then FindEvents (full rows, raw body included). One op is one payment.
func BenchmarkReconcileLookupPerKey(b *testing.B) {
	for _, be := range benchBackends {
		b.Run(be.name, func(b *testing.B) {
			db := be.fresh(b)
			keys := lookupKeys(b, db, 1000)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := keys[i%len(keys)]
				if _, err := db.GetBooking(ctx, k); err != nil {
					b.Fatal(err)
				}
				if rows, err := db.FindEvents(ctx, k); err != nil || len(rows) != 1 {
					b.Fatalf("FindEvents(%s) = %d rows, %v", k, len(rows), err)
				}
			}
		})
	}
}

// BenchmarkReconcileLookupBatched is the same look-up for a page of 100 payments at once:
// BookingsByBusinessKeys and EventsByBusinessKeys (status columns only). One op is one
// payment, so the figure compares with BenchmarkReconcileLookupPerKey.
func BenchmarkReconcileLookupBatched(b *testing.B) {
	const page = 100
	for _, be := range benchBackends {
		b.Run(be.name, func(b *testing.B) {
			db := be.fresh(b)
			keys := lookupKeys(b, db, 1000)
			b.ReportAllocs()
			b.ResetTimer()
			for done := 0; done < b.N; done += page {
				from := done % len(keys)
				chunk := keys[from:min(from+page, len(keys))]
				bookings, err := db.BookingsByBusinessKeys(ctx, chunk)
				if err != nil || len(bookings) != len(chunk) {
					b.Fatalf("BookingsByBusinessKeys = %d rows, %v", len(bookings), err)
				}
				events, err := db.EventsByBusinessKeys(ctx, chunk)
				if err != nil || len(events) != len(chunk) {
					b.Fatalf("EventsByBusinessKeys = %d keys, %v", len(events), err)
				}
			}
		})
	}
}
