package main

import (
	"math"
	"slices"
	"time"
)

// percentile returns the q-th quantile (0 < q ≤ 1) of sorted by the nearest-rank method: the
// smallest value with at least q of the values at or below it; 0 for no values. p99 of 100
// values is the 99th smallest, p100 the largest.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(q * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// median returns the middle value of xs (the mean of the two middle ones for an even count);
// 0 for none. xs is not changed.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Latency is the summary of one run's acknowledgement times, in milliseconds.
type Latency struct {
	Count  int     `json:"count"`
	P50ms  float64 `json:"p50_ms"`
	P99ms  float64 `json:"p99_ms"`
	P999ms float64 `json:"p999_ms"`
	MaxMs  float64 `json:"max_ms"`
}

// summarise sorts ds in place and summarises it.
func summarise(ds []time.Duration) Latency {
	slices.Sort(ds)
	return Latency{Count: len(ds), P50ms: ms(percentile(ds, 0.50)), P99ms: ms(percentile(ds, 0.99)),
		P999ms: ms(percentile(ds, 0.999)), MaxMs: ms(percentile(ds, 1))}
}

// medianLatency is the run-by-run median of each figure of runs (each percentile is the median
// of that percentile over the runs, not a percentile of the pooled samples).
func medianLatency(runs []Latency) Latency {
	pick := func(f func(Latency) float64) float64 {
		xs := make([]float64, len(runs))
		for i, r := range runs {
			xs[i] = f(r)
		}
		return round3(median(xs))
	}
	return Latency{
		Count:  int(pick(func(l Latency) float64 { return float64(l.Count) })),
		P50ms:  pick(func(l Latency) float64 { return l.P50ms }),
		P99ms:  pick(func(l Latency) float64 { return l.P99ms }),
		P999ms: pick(func(l Latency) float64 { return l.P999ms }),
		MaxMs:  pick(func(l Latency) float64 { return l.MaxMs }),
	}
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

// round3 rounds x to three decimals (figures are reported, never summed again).
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// ratio is a/b to three decimals; 0 when b is 0 (a figure that could not be measured).
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return round3(a / b)
}
