package razorpaysim

import (
	"errors"
	"sync"
	"time"
)

// replayWindow is how old an event may be and still be replayed (spec/razorpay.md §1.9),
// before scaling.
const replayWindow = 15 * 24 * time.Hour

// Errors of ReplayEvent.
var (
	// ErrUnknownEvent: no event of this mode has the id.
	ErrUnknownEvent = errors.New("razorpaysim: unknown event id")
	// ErrReplayTooOld: the event is more than 15 days (scaled) old.
	ErrReplayTooOld = errors.New("razorpaysim: event older than 15 days can no longer be replayed")
	// ErrNothingToReplay: the event went to no endpoint (none was enabled, subscribed and had a
	// URL when it happened), the one asked for was not among them, or every one of them is
	// disabled now.
	ErrNothingToReplay = errors.New("razorpaysim: no enabled webhook to replay the event to")
	// ErrClosed: the simulator is closed.
	ErrClosed = errors.New("razorpaysim: closed")
)

// ReplayEvent resends a stored event on request, as Razorpay support does (spec/razorpay.md
// §1.9, checklist item 14): one attempt to each endpoint the event went to when it happened
// (or only to the endpoint webhookID when not ""), with the same event id, the same bytes and
// the same signature as the original deliveries, even after a secret rotation. Events lost on
// purpose (PaymentOptions.Lose and the like) can be replayed too. Endpoints disabled now are
// skipped. Age is measured like the retry window: real time since creation, scaled by
// TimeScale; beyond 15 days the replay is refused.
//
// ReplayEvent waits for the attempts (each bounded by DeliveryTimeout) and returns them; they
// are also recorded in State with Replay set. A replay neither changes the event's Delivered
// or Finished flags nor retries. Errors: ErrUnknownEvent, ErrReplayTooOld, ErrUnknownWebhook,
// ErrNothingToReplay, ErrClosed.
func (s *Sim) ReplayEvent(id, webhookID string) ([]Attempt, error) {
	s.mu.Lock()
	if s.ctx.Err() != nil {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	var e *event
	for _, ev := range s.events {
		if ev.id == id {
			e = ev
			break
		}
	}
	switch {
	case e == nil:
		s.mu.Unlock()
		return nil, ErrUnknownEvent
	case time.Since(e.created) > s.scaled(replayWindow):
		s.mu.Unlock()
		return nil, ErrReplayTooOld
	case webhookID != "" && s.endpoint(webhookID) == nil:
		s.mu.Unlock()
		return nil, ErrUnknownWebhook
	}
	var jobs []job
	for _, d := range e.deliveries {
		if (webhookID == "" || d.ep.id == webhookID) && !d.ep.disabled {
			jobs = append(jobs, job{e, d})
		}
	}
	if len(jobs) == 0 {
		s.mu.Unlock()
		return nil, ErrNothingToReplay
	}
	s.wg.Add(len(jobs))
	s.mu.Unlock()

	res := make([]outcome, len(jobs))
	var wg sync.WaitGroup
	wg.Add(len(jobs))
	for i, j := range jobs {
		go func() {
			defer s.wg.Done()
			defer wg.Done()
			res[i] = s.attempt(j, false, true)
		}()
	}
	wg.Wait()
	var out []Attempt
	for _, r := range res {
		if !r.skipped {
			out = append(out, r.attempt)
		}
	}
	return out, nil
}
