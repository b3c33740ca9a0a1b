package main

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock jumps to whatever time the generator sleeps until.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) SleepUntil(_ context.Context, t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
}

var clockStart = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

func TestOpenLoopSendsOnTheClock(t *testing.T) {
	clk := &fakeClock{now: clockStart}
	var mu sync.Mutex
	due := map[int]time.Time{}
	res := openLoop(context.Background(), clk, 1000, 2*time.Second, 10000, func(i int, at time.Time) {
		mu.Lock()
		defer mu.Unlock()
		if _, dup := due[i]; dup {
			t.Errorf("request %d fired twice", i)
		}
		due[i] = at
	})
	if res != (openLoopResult{Scheduled: 2000, Sent: 2000}) || len(due) != 2000 {
		t.Fatalf("result %+v, %d fired; want 2000 scheduled and sent", res, len(due))
	}
	for i := 0; i < 2000; i++ {
		if want := clockStart.Add(time.Duration(i) * time.Millisecond); !due[i].Equal(want) {
			t.Fatalf("request %d due %v; want %v (start + i/rate)", i, due[i].Sub(clockStart), want.Sub(clockStart))
		}
	}
	// A fractional rate keeps exact spacing too: 3/s for 2 s is 6 requests, 333.33 ms apart.
	clk = &fakeClock{now: clockStart}
	got := make([]time.Duration, 6)
	openLoop(context.Background(), clk, 3, 2*time.Second, 100, func(i int, at time.Time) { got[i] = at.Sub(clockStart) })
	want := []time.Duration{0, 333333333, 666666666, time.Second, 1333333333, 1666666666}
	if len(got) != len(want) {
		t.Fatalf("3/s for 2 s: %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("3/s: request %d due %v; want %v", i, got[i], want[i])
		}
	}
}

// The loop is open: answers that never come do not hold back later sends.
func TestOpenLoopDoesNotWaitForAnswers(t *testing.T) {
	clk := &fakeClock{now: clockStart}
	release := make(chan struct{})
	var fired atomic.Int64
	done := make(chan openLoopResult)
	go func() {
		done <- openLoop(context.Background(), clk, 100, time.Second, 1000, func(int, time.Time) {
			fired.Add(1)
			<-release // no answer until every request has been sent
		})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for fired.Load() < 100 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of 100 requests sent while none was answered: the loop is closed", fired.Load())
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case <-done:
		t.Fatal("openLoop returned before its requests were answered")
	default:
	}
	close(release)
	if res := <-done; res.Sent != 100 || res.Skipped != 0 {
		t.Fatalf("result %+v", res)
	}
}

// Past maxInFlight unanswered requests, later ones are skipped and counted, not queued.
func TestOpenLoopBoundsInFlight(t *testing.T) {
	clk := &fakeClock{now: clockStart}
	release := make(chan struct{})
	var fired atomic.Int64
	done := make(chan openLoopResult)
	go func() {
		done <- openLoop(context.Background(), clk, 1000, time.Second, 5, func(int, time.Time) {
			fired.Add(1)
			<-release
		})
	}()
	// Once the clock reaches the last request's due time, every earlier one has been sent
	// or skipped; only the 5 first were sent, since none of them is answered yet.
	last := clockStart.Add(999 * time.Millisecond)
	deadline := time.Now().Add(30 * time.Second)
	for clk.Now().Before(last) {
		if time.Now().After(deadline) {
			t.Fatalf("the clock stopped at %v", clk.Now().Sub(clockStart))
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	res := <-done
	if res.Scheduled != 1000 || res.Sent+res.Skipped != 1000 || res.Sent < 5 || res.Sent > 6 {
		t.Fatalf("result %+v; want 1000 scheduled, the first 5 (and perhaps the last) sent, the rest skipped", res)
	}
	if int64(res.Sent) != fired.Load() {
		t.Fatalf("sent %d, fired %d", res.Sent, fired.Load())
	}
}
