package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// delivery is one webhook request to make: the event at At after the start of sending, to
// replica Target (-1: to every replica at the same instant, a duplicate racing itself).
type delivery struct {
	Event  recordedEvent
	At     time.Duration
	Target int
	Dup    bool
}

// timelineCounts describe the deliveries planned.
type timelineCounts struct {
	Events        int `json:"events"`
	Deliveries    int `json:"deliveries"`
	Duplicates    int `json:"duplicates"`
	Concurrent    int `json:"duplicates_concurrent"`
	Reordered     int `json:"reordered_payments"`
	EarlyRefunds  int `json:"refunds_before_payment"`
	LostPayments  int `json:"lost_payments"`
	RefundsSent   int `json:"refund_events"`
	OrderPaidSent int `json:"order_paid_events"`
}

// planDeliveries spreads the events over span: payment i's events at i·span/n (in reverse for
// reordered payments), a refund's some seconds after its payment (or just before it, for early
// ones), lost payments not at all; a share of events sent twice, later to a random replica or
// at once to every replica.
func planDeliveries(sc *scenario, events []recordedEvent, s scenarioSettings, replicas int, span time.Duration, rnd *rand.Rand) ([]delivery, timelineCounts) {
	byKey := map[string][]recordedEvent{}
	for _, e := range events {
		byKey[e.Key] = append(byKey[e.Key], e)
	}
	slot := map[string]time.Duration{}
	step := span / time.Duration(max(1, len(sc.Payments)))
	var out []delivery
	var tc timelineCounts
	add := func(evs []recordedEvent, at time.Duration) {
		for i, e := range evs {
			tc.Events++
			d := delivery{Event: e, At: at + time.Duration(i)*30*time.Millisecond, Target: rnd.IntN(replicas)}
			out = append(out, d)
			if e.Event == "order.paid" {
				tc.OrderPaidSent++
			}
			if rnd.Float64() >= s.DupShare {
				continue
			}
			tc.Duplicates++
			if rnd.Float64() < s.DupConcurrent {
				tc.Concurrent++
				out[len(out)-1].Target = -1
				continue
			}
			dup := d
			dup.At += 200*time.Millisecond + time.Duration(rnd.Int64N(int64(5*time.Second)))
			dup.Target, dup.Dup = rnd.IntN(replicas), true
			out = append(out, dup)
		}
	}
	for i, p := range sc.Payments {
		slot[p.ID] = time.Duration(i) * step
		if p.Lost {
			tc.LostPayments++
			continue
		}
		evs := slices.Clone(byKey[p.ID])
		if p.Reordered {
			tc.Reordered++
			slices.Reverse(evs)
		}
		add(evs, slot[p.ID])
	}
	for _, r := range sc.Refunds {
		at := slot[r.PaymentID] + 2*time.Second + time.Duration(rnd.Int64N(int64(10*time.Second)))
		evs := slices.Clone(byKey[r.ID])
		if r.Early {
			tc.EarlyRefunds++
			at = max(0, slot[r.PaymentID]-500*time.Millisecond)
			slices.Reverse(evs)
		}
		tc.RefundsSent += len(evs)
		add(evs, at)
	}
	slices.SortStableFunc(out, func(a, b delivery) int { return int(a.At - b.At) })
	for _, d := range out {
		tc.Deliveries++
		if d.Target < 0 {
			tc.Deliveries += replicas - 1
		}
	}
	return out, tc
}

// senderCounts are what the webhook sender saw.
type senderCounts struct {
	Requests    int64 `json:"requests"`
	Accepted    int64 `json:"accepted"`
	Duplicate   int64 `json:"answered_duplicate"`
	Unavailable int64 `json:"answered_503"`
	Other       int64 `json:"answered_other"`
	Failed      int64 `json:"connection_failed"`
	GaveUp      int64 `json:"gave_up"`
}

// sender posts webhooks like Razorpay's sender behind a load balancer: signed, 5 s deadline,
// retried (to the other replica, after a growing pause) until a 2xx answer.
type sender struct {
	urls   []string
	secret []byte
	hc     *http.Client

	requests, accepted, duplicate, unavailable, other, failed, gaveUp atomic.Int64
	sent                                                              atomic.Int64 // deliveries finished
}

func newSender(urls []string, secret string) *sender {
	return &sender{urls: urls, secret: []byte(secret),
		hc: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
}

// run sends every delivery at its time, at most parallel at once, and returns when all have
// been answered 2xx or ctx ends.
func (s *sender) run(ctx context.Context, plan []delivery, parallel int) {
	start := time.Now()
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, d := range plan {
		if wait := time.Until(start.Add(d.At)); wait > 0 {
			// Pacing of the load generator: each delivery goes out at its planned time.
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
		}
		targets := []int{d.Target}
		if d.Target < 0 {
			targets = targets[:0]
			for i := range s.urls {
				targets = append(targets, i)
			}
		}
		for _, t := range targets {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				wg.Wait()
				return
			}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done(); s.sent.Add(1) }()
				s.deliver(ctx, d.Event, t)
			}()
		}
	}
	wg.Wait()
}

// deliver posts one event until a replica answers 2xx, starting with replica first.
func (s *sender) deliver(ctx context.Context, e recordedEvent, first int) {
	mac := hmac.New(sha256.New, s.secret)
	mac.Write(e.Body)
	sig := hex.EncodeToString(mac.Sum(nil))
	pause := 100 * time.Millisecond
	for attempt := 0; ctx.Err() == nil; attempt++ {
		url := s.urls[(first+attempt)%len(s.urls)]
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(e.Body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Razorpay-Signature", sig)
		req.Header.Set("X-Razorpay-Event-Id", e.ID)
		req.Header.Set("User-Agent", "Razorpay-Webhook/v1")
		s.requests.Add(1)
		resp, err := s.hc.Do(req)
		if err == nil {
			var ans struct{ Status string }
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			_ = json.Unmarshal(b, &ans)
			switch {
			case resp.StatusCode/100 == 2 && ans.Status == "duplicate":
				s.duplicate.Add(1)
				return
			case resp.StatusCode/100 == 2:
				s.accepted.Add(1)
				return
			case resp.StatusCode == http.StatusServiceUnavailable:
				s.unavailable.Add(1)
			default:
				// Razorpay retries any other answer too; a refusal that repeats (4xx) is a
				// finding, not worth a day of retries here.
				if s.other.Add(1); resp.StatusCode/100 == 4 && attempt >= 2 {
					s.gaveUp.Add(1)
					return
				}
			}
		} else {
			s.failed.Add(1)
		}
		// Pacing: a retry after a failed delivery waits as Razorpay's sender would (doubling, ≤ 2 s).
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
	s.gaveUp.Add(1)
}

func (s *sender) counts() senderCounts {
	return senderCounts{Requests: s.requests.Load(), Accepted: s.accepted.Load(), Duplicate: s.duplicate.Load(),
		Unavailable: s.unavailable.Load(), Other: s.other.Load(), Failed: s.failed.Load(), GaveUp: s.gaveUp.Load()}
}
