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

// ReplayEvent is Sim.ReplayEvent.
func (wh *webhooks) ReplayEvent(id, webhookID string) ([]Attempt, error) {
	wh.st.mu.Lock()
	if wh.life.ctx.Err() != nil {
		wh.st.mu.Unlock()
		return nil, ErrClosed
	}
	var e *event
	for _, ev := range wh.events {
		if ev.id == id {
			e = ev
			break
		}
	}
	switch {
	case e == nil:
		wh.st.mu.Unlock()
		return nil, ErrUnknownEvent
	case time.Since(e.created) > wh.life.scaled(replayWindow):
		wh.st.mu.Unlock()
		return nil, ErrReplayTooOld
	case webhookID != "" && wh.endpoint(webhookID) == nil:
		wh.st.mu.Unlock()
		return nil, ErrUnknownWebhook
	}
	var jobs []job
	for _, d := range e.deliveries {
		if (webhookID == "" || d.ep.id == webhookID) && !d.ep.disabled {
			jobs = append(jobs, job{e, d})
		}
	}
	if len(jobs) == 0 {
		wh.st.mu.Unlock()
		return nil, ErrNothingToReplay
	}
	wh.life.wg.Add(len(jobs))
	wh.st.mu.Unlock()

	res := make([]outcome, len(jobs))
	var wg sync.WaitGroup
	wg.Add(len(jobs))
	for i, j := range jobs {
		go func() {
			defer wh.life.wg.Done()
			defer wg.Done()
			res[i] = wh.attempt(j, false, true)
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
