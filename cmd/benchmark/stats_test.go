package main

import (
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 1000; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond) // 1 ms … 1000 ms, sorted
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{
		{0.50, 500 * time.Millisecond},
		{0.99, 990 * time.Millisecond},
		{0.999, 999 * time.Millisecond},
		{1, 1000 * time.Millisecond},
		{0.0001, 1 * time.Millisecond},
	} {
		if got := percentile(ds, c.q); got != c.want {
			t.Errorf("percentile(1..1000 ms, %v) = %v; want %v", c.q, got, c.want)
		}
	}
	// Few samples: p99 of 10 values is the largest, never an interpolated value.
	few := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 100}
	if got := percentile(few, 0.99); got != 100 {
		t.Errorf("p99 of 10 = %v; want the largest, 100", got)
	}
	if got := percentile(few, 0.5); got != 5 {
		t.Errorf("p50 of 10 = %v; want the 5th, 5", got)
	}
	if got := percentile(nil, 0.99); got != 0 {
		t.Errorf("p99 of none = %v; want 0", got)
	}
}

func TestSummariseSortsAndReportsMilliseconds(t *testing.T) {
	ds := []time.Duration{7 * time.Millisecond, 1500 * time.Microsecond, 3 * time.Millisecond, 250 * time.Microsecond}
	got := summarise(ds)
	want := Latency{Count: 4, P50ms: 1.5, P99ms: 7, P999ms: 7, MaxMs: 7}
	if got != want {
		t.Fatalf("summarise = %+v; want %+v", got, want)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{9, 1, 5}, 5}, {[]float64{4, 1, 3, 2}, 2.5}} {
		in := append([]float64(nil), c.xs...)
		if got := median(in); got != c.want {
			t.Errorf("median(%v) = %v; want %v", c.xs, got, c.want)
		}
		for i := range in {
			if in[i] != c.xs[i] {
				t.Fatalf("median reordered its argument: %v", in)
			}
		}
	}
}

func TestMedianLatencyIsPerFigure(t *testing.T) {
	runs := []Latency{
		{Count: 100, P50ms: 1, P99ms: 30, P999ms: 40, MaxMs: 50},
		{Count: 300, P50ms: 3, P99ms: 10, P999ms: 20, MaxMs: 90},
		{Count: 200, P50ms: 2, P99ms: 20, P999ms: 60, MaxMs: 70},
	}
	want := Latency{Count: 200, P50ms: 2, P99ms: 20, P999ms: 40, MaxMs: 70}
	if got := medianLatency(runs); got != want {
		t.Fatalf("medianLatency = %+v; want %+v", got, want)
	}
}

func TestRatio(t *testing.T) {
	if got := ratio(1, 3); got != 0.333 {
		t.Errorf("ratio(1, 3) = %v", got)
	}
	if got := ratio(5, 0); got != 0 {
		t.Errorf("ratio(5, 0) = %v; want 0 (not measured)", got)
	}
}
