package throttle

import (
	"context"
	"errors"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// admissions records every admission with the gate's state at that instant (the hook runs with
// the gate's lock held, so the record is exact, not raced).
type admissions struct {
	mu         sync.Mutex
	times      []time.Time
	early      int // admitted before the pause ended
	besideProb int // admitted while a probe was in flight
	probes     int
}

func watch(g *Gate) *admissions {
	a := &admissions{}
	g.onAdmit = func(now time.Time, probe bool) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.times = append(a.times, now)
		if now.Before(g.until) {
			a.early++
		}
		if probe {
			a.probes++
		} else if g.probe != nil {
			a.besideProb++
		}
	}
	return a
}

// TestNoAdmissionInsideAPause runs 20 callers that each make 15 requests against a gate whose
// "server" throttles every 7th request with a 40 ms hint: every request completes, none is
// admitted before the pause it followed ends, and none runs beside a probe.
func TestNoAdmissionInsideAPause(t *testing.T) {
	g := New(nil)
	a := watch(g)
	var seq atomic.Int64
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make([]int, 20)
	for w := range done {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done[w] < 15 {
				tk, err := g.Wait(ctx)
				if err != nil {
					t.Errorf("Wait: %v", err)
					return
				}
				time.Sleep(time.Millisecond) // the request's own duration
				if seq.Add(1)%7 == 0 {
					tk.Done(Throttled, 40*time.Millisecond)
					continue
				}
				tk.Done(Answered, 0)
				done[w]++
			}
		}()
	}
	wg.Wait()
	st := g.State()
	if a.early != 0 || a.besideProb != 0 {
		t.Fatalf("%d admissions inside a pause, %d beside a probe", a.early, a.besideProb)
	}
	if st.Throttled == 0 || st.Pauses == 0 || st.Pauses > st.Throttled || a.probes < int(st.Pauses) {
		t.Errorf("state %+v, %d probes", st, a.probes)
	}
	if st.Waiting != 0 {
		t.Errorf("Waiting = %d after every caller returned", st.Waiting)
	}
	if got := len(a.times); int64(got) != seq.Load() {
		t.Errorf("%d admissions, %d requests", got, seq.Load())
	}
}

// TestPauseThenProbeThenSpacedSlots: after a pause the first caller probes alone; ten callers
// arriving meanwhile wait behind it; when it is answered they start in slots spaced by its round
// trip (the k-th no sooner than probe end + (k−1) × spacing), and each wakes at most three times
// (no polling).
func TestPauseThenProbeThenSpacedSlots(t *testing.T) {
	g := New(nil)
	a := watch(g)
	var wakes atomic.Int64
	g.onWake = func() { wakes.Add(1) }
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	first, _ := g.Wait(ctx)
	pausedAt := time.Now()
	if p := first.Done(Throttled, 100*time.Millisecond); p != 100*time.Millisecond {
		t.Fatalf("pause = %v", p)
	}
	probe, err := g.Wait(ctx)
	if err != nil || !probe.probe {
		t.Fatalf("first caller after the pause: %v, probe %v", err, probe != nil && probe.probe)
	}
	if d := a.times[1].Sub(pausedAt); d < 100*time.Millisecond {
		t.Fatalf("probe admitted %v after the pause began, want ≥ 100ms", d)
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk, err := g.Wait(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			tk.Done(Answered, 0)
		}()
	}
	// They block on the probe, however slowly they start.
	testtime.Until(t, "10 callers waiting behind the probe", func() bool { return g.State().Waiting == 10 })
	time.Sleep(20 * time.Millisecond) // behaviour, not synchronisation: the probe's round trip sets the spacing
	probe.Done(Answered, 0)
	g.mu.Lock()
	spacing, probeEnd := g.spacing, g.next
	g.mu.Unlock()
	wg.Wait()
	if a.early != 0 || a.besideProb != 0 || a.probes != 1 || len(a.times) != 12 {
		t.Fatalf("early %d, beside probe %d, probes %d, admissions %d", a.early, a.besideProb, a.probes, len(a.times))
	}
	if spacing < 20*time.Millisecond || spacing > MaxSpacing {
		t.Fatalf("spacing = %v, want the probe's round trip (≥ 20ms)", spacing)
	}
	times := append([]time.Time(nil), a.times[2:]...)
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	for k, at := range times {
		if slot := probeEnd.Add(time.Duration(k) * spacing); at.Before(slot) {
			t.Errorf("caller %d started at +%v, before its slot +%v", k, at.Sub(probeEnd), slot.Sub(probeEnd))
		}
	}
	if w := wakes.Load(); w > 2*10 {
		t.Errorf("%d wake-ups for 10 waiters: the gate polls", w)
	}
}

// TestWaitEndsWithTheCallersContext: a cancelled context ends the wait promptly; a deadline
// before the pause ends returns at once with DeadlineExceeded; neither admits anything.
func TestWaitEndsWithTheCallersContext(t *testing.T) {
	g := New(nil)
	g.SetMaxPause(2 * time.Hour)
	a := watch(g)
	tk, _ := g.Wait(context.Background())
	tk.Done(Throttled, time.Hour)

	ctx, cancel := context.WithCancel(context.Background())
	go func() { // cancel once the wait below has begun
		testtime.Poll(testtime.Bound, func() bool { return g.State().Waiting == 1 })
		cancel()
	}()
	start := time.Now()
	_, err := g.Wait(ctx)
	var p *Paused
	if !errors.As(err, &p) || !errors.Is(err, context.Canceled) || time.Until(p.Until) < 50*time.Minute {
		t.Fatalf("err = %v, want *Paused wrapping Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancelled wait took %v", d)
	}

	dl, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	_, err = g.Wait(dl)
	if !errors.Is(err, context.DeadlineExceeded) || dl.Err() != nil {
		t.Fatalf("err = %v (ctx %v): a deadline before the pause ends must return at once", err, dl.Err())
	}
	if len(a.times) != 1 || g.State().Waiting != 0 {
		t.Errorf("admissions %d, waiting %d", len(a.times), g.State().Waiting)
	}
}

// TestBackoffWithoutHint: throttled answers without Retry-After pause 1 s, 2 s, 4 s … capped at
// 32 s; answers to requests sent before the pause began extend it without escalating; a request
// answered after the pause resets the streak.
func TestBackoffWithoutHint(t *testing.T) {
	clock := time.Unix(1768453200, 0)
	g := New(func() time.Time { return clock })
	g.jitter = func(time.Duration) time.Duration { return 0 }
	ctx := context.Background()
	admit := func() *Ticket {
		t.Helper()
		clock = clock.Add(time.Hour) // past any pause: Wait admits at once
		tk, err := g.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	var want = []time.Duration{1, 2, 4, 8, 16, 32, 32}
	for i, w := range want {
		tk := admit()
		if !tk.probe && i > 0 {
			t.Fatalf("request %d after a pause is not the probe", i)
		}
		if p := tk.Done(Throttled, 0); p != w*time.Second {
			t.Fatalf("pause %d = %v, want %v", i+1, p, w*time.Second)
		}
		if !g.State().Until.Equal(clock.Add(w * time.Second)) {
			t.Fatalf("until = %v, want now+%v", g.State().Until, w*time.Second)
		}
	}
	a, b := admit(), (*Ticket)(nil)
	a.Done(Answered, 0) // the probe answers: streak reset, gate open
	a, b = admit(), admit()
	if p := a.Done(Throttled, 0); p != time.Second {
		t.Fatalf("after a success the backoff restarts at 1s, got %v", p)
	}
	if p := b.Done(Throttled, 0); p != time.Second || g.State().Pauses != 8 {
		t.Fatalf("a request in flight before the pause escalated it: %v, pauses %d", p, g.State().Pauses)
	}
	if st := g.State(); st.Throttled != 9 || st.LastPause != time.Second {
		t.Errorf("state %+v", st)
	}
}

// TestAbandonedProbeHandsOver: a probe whose caller gives up lets the next caller probe.
func TestAbandonedProbeHandsOver(t *testing.T) {
	g := New(nil)
	tk, _ := g.Wait(context.Background())
	tk.Done(Throttled, 10*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	probe, err := g.Wait(ctx)
	if err != nil || !probe.probe {
		t.Fatalf("first caller after the pause: %v, probe %v", err, probe != nil && probe.probe)
	}
	got := make(chan *Ticket)
	go func() {
		next, err := g.Wait(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- next
	}()
	probe.Done(Abandoned, 0)
	next := <-got
	if next == nil || !next.probe {
		t.Fatal("the caller behind an abandoned probe must become the probe")
	}
	next.Done(Answered, 0)
}

// TestLongRetryAfterIsCapped: a Retry-After of a day (a proxy's 86400) pauses the gate only for
// the cap — 5 min by default, what SetMaxPause says otherwise — and is counted with what was asked.
func TestLongRetryAfterIsCapped(t *testing.T) {
	clock := time.Unix(1768453200, 0)
	g := New(func() time.Time { return clock })
	g.jitter = func(time.Duration) time.Duration { return 0 }
	tk, err := g.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p := tk.Done(Throttled, 24*time.Hour); p != 5*time.Minute {
		t.Fatalf("pause = %v, want 5m0s (DefaultMaxPause)", p)
	}
	st := g.State()
	if !st.Until.Equal(clock.Add(5*time.Minute)) || st.Capped != 1 || st.LastAsked != 24*time.Hour || st.LastPause != 5*time.Minute {
		t.Fatalf("state %+v: want until now+5m, capped 1, asked 24h, pause 5m", st)
	}
	g.SetMaxPause(30 * time.Second)
	clock = clock.Add(time.Hour)
	tk, _ = g.Wait(context.Background())
	if p := tk.Done(Throttled, 20*time.Second); p != 20*time.Second || g.State().Capped != 1 {
		t.Fatalf("a hint under the cap: pause %v, capped %d; want 20s, 1", p, g.State().Capped)
	}
	clock = clock.Add(time.Hour)
	tk, _ = g.Wait(context.Background())
	if p := tk.Done(Throttled, 31*time.Second); p != 30*time.Second || g.State().Capped != 2 {
		t.Fatalf("a hint over a 30s cap: pause %v, capped %d; want 30s, 2", p, g.State().Capped)
	}
}

// TestParseRetryAfterBounds: seconds and HTTP dates alike are read up to a year.
func TestParseRetryAfterBounds(t *testing.T) {
	now := time.Date(2026, 1, 15, 5, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"86400":                         24 * time.Hour,
		"99999999999":                   365 * 24 * time.Hour,
		"Thu, 15 Jan 2026 05:00:30 GMT": 30 * time.Second,
		"Fri, 01 Jan 2100 00:00:00 GMT": 365 * 24 * time.Hour,
		"Wed, 14 Jan 2026 05:00:00 GMT": 0,
		"-5":                            0,
		"soon":                          0,
	} {
		if got := ParseRetryAfter(v, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}
