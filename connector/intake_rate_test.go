package connector

import (
	"testing"
	"time"
)

// The window of intakeRate: the current 100 ms and the nine before it, on the clock it is given.
func TestIntakeRateCountsTheLastSecond(t *testing.T) {
	var r intakeRate
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	for i := 0; i < 30; i++ {
		r.add(t0.Add(time.Duration(i) * 10 * time.Millisecond)) // 30 over 0–290 ms
	}
	cases := []struct {
		at   time.Duration
		want int64
	}{
		{290 * time.Millisecond, 30},
		{999 * time.Millisecond, 30},  // the bucket of 0–99 ms is still in the window
		{1000 * time.Millisecond, 20}, // it has left: 10 of the 30 were in it
		{1199 * time.Millisecond, 10},
		{1300 * time.Millisecond, 0},
		{-time.Millisecond, 0}, // before every bucket: nothing counted from the future
	}
	for _, c := range cases {
		if got := r.count(t0.Add(c.at)); got != c.want {
			t.Errorf("count at +%v = %d, want %d", c.at, got, c.want)
		}
	}
	// A bucket reused a second later starts from zero: the ring wraps.
	r.add(t0.Add(1050 * time.Millisecond))
	if got := r.count(t0.Add(1050 * time.Millisecond)); got != 21 {
		t.Errorf("after wrap-around count = %d, want 21 (20 still in the window + 1)", got)
	}
	if got := r.count(t0.Add(1999 * time.Millisecond)); got != 1 {
		t.Errorf("at +1999ms count = %d, want 1 (only the webhook of +1050ms)", got)
	}
	if got := r.count(t0.Add(2000 * time.Millisecond)); got != 0 {
		t.Errorf("at +2000ms count = %d, want 0", got)
	}
}

func BenchmarkIntakeRateAdd(b *testing.B) {
	var r intakeRate
	now := time.Now()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.add(now.Add(time.Duration(i) * time.Microsecond))
	}
}
