package store_test

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkInsertEvent measures one webhook's intake write (InsertEvent of a ~1 KiB body) on
// each driver.
func BenchmarkInsertEvent(b *testing.B) {
	body := make([]byte, 1024)
	for i := range body {
		body[i] = 'a' + byte(i%26)
	}
	for _, be := range []struct {
		name string
		backend
	}{{"sqlite", sqliteBackend}, {"mariadb", mariadbBackend}} {
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
