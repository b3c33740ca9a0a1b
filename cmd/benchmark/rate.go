package main

import (
	"context"
	"sync"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sleep"
)

// clock is the time source of the open-loop generator; tests inject a fake one.
type clock interface {
	Now() time.Time
	// SleepUntil returns at t, or at once when t has passed or ctx is done.
	SleepUntil(ctx context.Context, t time.Time)
}

// wallClock is the real clock.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) SleepUntil(ctx context.Context, t time.Time) {
	_ = sleep.Until(ctx, t) // a cancelled context ends the generator's loop
}

// openLoopResult counts what the generator did.
type openLoopResult struct {
	Scheduled int // rate × duration
	Sent      int // handed to fire
	Skipped   int // not sent: maxInFlight requests were still unanswered
}

// openLoop sends requests on a clock, not in a closed loop: request i is due at
// start + i/rate (start = clk.Now() on entry) for i < rate × d, and fire(i, due) runs in its own
// goroutine at that time whatever the earlier requests are doing, so a slow answer never
// delays the next send and queueing shows up in the latency fire measures from due (no
// coordinated omission). When the generator runs late (a busy machine) it sends what is due
// at once rather than shifting the schedule. At most maxInFlight fires run at once (the
// client's own bound, so an overloaded server cannot exhaust the benchmark); a request due
// while the bound is reached is skipped and counted. It returns when every fire has returned,
// or stops scheduling when ctx is done.
func openLoop(ctx context.Context, clk clock, rate float64, d time.Duration, maxInFlight int, fire func(i int, due time.Time)) openLoopResult {
	n := int(rate * d.Seconds())
	res := openLoopResult{Scheduled: n}
	slots := make(chan struct{}, maxInFlight)
	var wg sync.WaitGroup
	start := clk.Now()
	for i := 0; i < n && ctx.Err() == nil; i++ {
		due := start.Add(time.Duration(float64(i) * float64(time.Second) / rate))
		clk.SleepUntil(ctx, due)
		select {
		case slots <- struct{}{}:
		default:
			res.Skipped++
			continue
		}
		res.Sent++
		wg.Add(1)
		go func(i int, due time.Time) {
			defer wg.Done()
			defer func() { <-slots }()
			fire(i, due)
		}(i, due)
	}
	wg.Wait()
	return res
}
