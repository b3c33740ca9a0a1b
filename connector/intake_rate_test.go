package connector

import (
	"sync"
	"testing"
	"time"
)

// rateT0 is on a whole second, so the window's buckets start at rateT0 + k × 100 ms.
var rateT0 = time.Unix(1768539600, 0)

func addN(r *intakeRate, at time.Time, n int) {
	for i := 0; i < n; i++ {
		r.add(at)
	}
}

// N webhooks spread over one second are hot exactly when N is above the limit; 0 is off.
func TestIntakeRateIsAboveExactlyPastTheLimit(t *testing.T) {
	var r intakeRate
	for k := 0; k < rateBuckets; k++ { // 3 in each of the ten buckets: 30 in [t0, t0+1s)
		addN(&r, rateT0.Add(time.Duration(k)*rateBucket+time.Duration(k)*7*time.Millisecond), 3)
	}
	now := rateT0.Add(999 * time.Millisecond)
	if n := r.lastSecond(now); n != 30 {
		t.Fatalf("lastSecond = %d, want 30", n)
	}
	for limit, want := range map[int]bool{29: true, 30: false, 31: false, 1: true, 0: false, -5: false} {
		if got := r.above(now, limit); got != want {
			t.Errorf("above(limit %d) with 30 = %v, want %v", limit, got, want)
		}
	}
}

// A bucket counts until the window has moved past it: the ten buckets from now's back (a
// count is seen by its whole bucket, 100 ms).
func TestIntakeRateWindowMovesOn(t *testing.T) {
	var r intakeRate
	addN(&r, rateT0, 5)                           // bucket 0
	addN(&r, rateT0.Add(450*time.Millisecond), 2) // bucket 4
	for _, c := range []struct {
		after time.Duration
		want  int
	}{
		{0, 5},
		{399 * time.Millisecond, 5},
		{450 * time.Millisecond, 7},
		{999 * time.Millisecond, 7},
		{time.Second, 2},             // bucket 0 has left the window
		{1399 * time.Millisecond, 2}, // bucket 4 is the oldest of it
		{1400 * time.Millisecond, 0}, // and has left it
		{time.Hour, 0},               // long after
		{-time.Millisecond, 0},       // before anything was counted
		{-100 * time.Millisecond, 0},
	} {
		if n := r.lastSecond(rateT0.Add(c.after)); n != c.want {
			t.Errorf("lastSecond at t0%+v = %d, want %d", c.after, n, c.want)
		}
	}
}

// The ring wraps: a bucket reused a second later starts again from zero, and counts that
// arrive for an older second than its bucket holds (a clock moved back) are dropped.
func TestIntakeRateBucketWrapsAround(t *testing.T) {
	var r intakeRate
	addN(&r, rateT0.Add(30*time.Millisecond), 9) // bucket 0, second 0
	later := rateT0.Add(time.Second + 60*time.Millisecond)
	addN(&r, later, 4) // bucket 0 again, second 1
	if n := r.lastSecond(later); n != 4 {
		t.Errorf("lastSecond after the wrap = %d, want 4 (not 13)", n)
	}
	addN(&r, rateT0.Add(10*time.Millisecond), 3) // second 0 again: older than bucket 0 holds
	if n := r.lastSecond(later); n != 4 {
		t.Errorf("lastSecond after late counts = %d, want 4", n)
	}
	if n := r.lastSecond(rateT0.Add(500 * time.Millisecond)); n != 0 {
		t.Errorf("lastSecond of second 0 now that its bucket holds second 1 = %d, want 0", n)
	}
	much := rateT0.Add(3*time.Second + 20*time.Millisecond) // bucket 0 two wraps later
	addN(&r, much, 1)
	if n := r.lastSecond(much); n != 1 {
		t.Errorf("lastSecond two wraps later = %d, want 1", n)
	}
}

// The window of intakeRate: the current 100 ms and the nine before it, on the clock it is given.
func TestIntakeRateCountsTheLastSecond(t *testing.T) {
	var r intakeRate
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	for i := 0; i < 30; i++ {
		r.add(t0.Add(time.Duration(i) * 10 * time.Millisecond)) // 30 over 0–290 ms
	}
	cases := []struct {
		at   time.Duration
		want int
	}{
		{290 * time.Millisecond, 30},
		{999 * time.Millisecond, 30},  // the bucket of 0–99 ms is still in the window
		{1000 * time.Millisecond, 20}, // it has left: 10 of the 30 were in it
		{1199 * time.Millisecond, 10},
		{1300 * time.Millisecond, 0},
		{-time.Millisecond, 0}, // before every bucket: nothing counted from the future
	}
	for _, c := range cases {
		if got := r.lastSecond(t0.Add(c.at)); got != c.want {
			t.Errorf("count at +%v = %d, want %d", c.at, got, c.want)
		}
	}
	// A bucket reused a second later starts from zero: the ring wraps.
	r.add(t0.Add(1050 * time.Millisecond))
	if got := r.lastSecond(t0.Add(1050 * time.Millisecond)); got != 21 {
		t.Errorf("after wrap-around count = %d, want 21 (20 still in the window + 1)", got)
	}
	if got := r.lastSecond(t0.Add(1999 * time.Millisecond)); got != 1 {
		t.Errorf("at +1999ms count = %d, want 1 (only the webhook of +1050ms)", got)
	}
	if got := r.lastSecond(t0.Add(2000 * time.Millisecond)); got != 0 {
		t.Errorf("at +2000ms count = %d, want 0", got)
	}
}

// A bucket's count saturates instead of overflowing into its slot.
func TestIntakeRateSaturates(t *testing.T) {
	var r intakeRate
	slot := rateSlot(rateT0)
	r.buckets[slot%rateBuckets].Store(slot<<rateCountBits | (rateCountMax - 1))
	addN(&r, rateT0, 3)
	if n := r.lastSecond(rateT0); n != rateCountMax {
		t.Errorf("lastSecond = %d, want %d", n, rateCountMax)
	}
}

// Concurrent adds at the same instant are all counted (with -race: no data race).
func TestIntakeRateCountsConcurrentAdds(t *testing.T) {
	var r intakeRate
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			addN(&r, rateT0.Add(250*time.Millisecond), 1000)
		}()
	}
	wg.Wait()
	if n := r.lastSecond(rateT0.Add(300 * time.Millisecond)); n != 8000 {
		t.Errorf("lastSecond = %d, want 8000", n)
	}
}

// BenchmarkIntakeRateAdd is what intake pays per webhook for the rate, the clock moving on
// (every bucket is reused); BenchmarkIntakeRateAddParallel the same with every core adding at
// one instant (contended compare-and-swap). Neither allocates.
func BenchmarkIntakeRateAdd(b *testing.B) {
	var r intakeRate
	now := time.Now()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.add(now.Add(time.Duration(i) * time.Microsecond))
	}
}

func BenchmarkIntakeRateAddParallel(b *testing.B) {
	var r intakeRate
	now := time.Now()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.add(now)
		}
	})
}
