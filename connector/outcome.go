package connector

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
)

// Result is how a job ended when it did not fail: done, duplicate or skipped, with the ERPNext
// document it booked or found and the note kept as last_error.
type Result struct {
	Status  Status
	Doctype string
	Name    string
	Note    string
	// Invoice is the invoice of the booking this job recorded ("" when it recorded none, or
	// the booking names none): the outcome's log line names it without reading the booking.
	Invoice string
	// Warnings are the body's (razorpay.Event.Warnings), set whatever the job returned: settle
	// keeps them with the outcome's reason.
	Warnings []string
}

// A job returns its failures as errors, and settle turns every one of them into an Outcome.
// Besides the clients' *Failure and the store's errors (retried), a stage returns one of these.
type (
	// WaitError is "not now": the job runs again at until without spending an attempt
	// (a claim or lock held by another worker, a grace period, a refund waiting for its receipt).
	// on is what ends the wait (Outcome.WaitFor): whoever ends it wakes the row before until.
	WaitError struct {
		Until  time.Time
		Reason string
		On     Wait
	}
	// ParkError needs a person; reason is what they read. doctype and name keep a document
	// recorded before parking (ERPNext's checkout entry whose fee is missing). on, when set, is
	// what un-parks the row without a person (Outcome.WaitFor: a refund parked for want of its
	// receipt goes back to pending when the receipt is booked).
	ParkError struct {
		Reason, Doctype, Name string
		On                    Wait
	}
	// DeadError can never succeed, however often it is tried (an unreadable body).
	DeadError struct{ Reason string }
	// stageError names the step that failed: "op: cause" is the reason kept.
	stageError struct {
		op  string
		err error
	}
	// AmbiguousError is a write whose outcome is unknown: the claim is kept until fence, and
	// the next attempt looks the document up first (DESIGN.md §4 step 7).
	AmbiguousError struct {
		Op, Key string
		Cause   *Failure
		Fence   time.Time
	}
)

func (e *WaitError) Error() string  { return e.Reason }
func (e *ParkError) Error() string  { return e.Reason }
func (e *DeadError) Error() string  { return e.Reason }
func (e *stageError) Error() string { return e.op + ": " + e.err.Error() }
func (e *stageError) Unwrap() error { return e.err }
func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%s: outcome unknown (%s); will look up reference_no %s after %s", e.Op, e.Cause.Reason(), e.Key, e.Fence.Format(time.RFC3339))
}

// WaitUntil is a WaitError with a formatted reason.
func WaitUntil(until time.Time, format string, a ...any) error {
	return &WaitError{Until: until, Reason: fmt.Sprintf(format, a...)}
}

// Parkf is a ParkError with a formatted reason.
func Parkf(format string, a ...any) error { return &ParkError{Reason: fmt.Sprintf(format, a...)} }

// Failed wraps err with the step that failed; nil stays nil.
func Failed(op string, err error) error {
	if err == nil {
		return nil
	}
	return &stageError{op: op, err: err}
}

// settle is the one function that turns what a job returned into the Outcome written on its
// inbox row (DESIGN.md §4 step 7): a result is done, duplicate or skipped; a WaitError waits
// without spending an attempt; a ParkError or *mapping.Park parks; a deadError is dead; an
// ambiguous write retries after its fence. A client *Failure follows its Kind: auth pauses all
// work and waits, throttled (429, 503 with Retry-After) waits out the pace the client keeps,
// rejected / not found / conflict park with the service's message, cancelled (shutdown) waits,
// anything else is a counted retry after Retry-After or the backoff; a store error is a counted
// retry. None but the counted retries spends an attempt. A counted retry past
// worker.max_attempts is dead, waiting for the next reconcile run (WaitReconcile): every counted
// retry is a failure that may pass (5xx, timeout, connection, store).
func (c *Connector) settle(ev *InboxEvent, res Result, err error) Outcome {
	o, refused := c.outcomeOf(ev, res, err)
	if refused != nil {
		c.pause(refused.System, refused.PauseReason())
	}
	if len(res.Warnings) > 0 {
		o.LastError = strings.TrimPrefix(o.LastError+"; "+bodyWarnings(res.Warnings), "; ")
	}
	if o.Status == StatusPending && o.CountAttempt && ev.Attempts+1 >= c.cfg.Worker.MaxAttempts {
		o.Status, o.WaitFor = StatusDead, WaitReconcile
		o.LastError = fmt.Sprintf("gave up after %d attempts (the next reconcile run tries again): %s", ev.Attempts+1, o.LastError)
	}
	return o
}

// bodyWarnings is the note kept for a body's warnings (a notes value that is
// free text is read as absent, and the event goes on).
func bodyWarnings(w []string) string { return "body warnings: " + strings.Join(w, "; ") }

// OutcomeOf is the Outcome the worker would write for a job that failed with err, without
// settle's effects (no pause, no attempt counted against worker.max_attempts), and whether the
// worker would pause all work on it: what a dry run (connector/explain) says of a failed read.
func (c *Connector) OutcomeOf(err error) (Outcome, bool) {
	o, refused := c.outcomeOf(&InboxEvent{}, Result{}, err)
	return o, refused != nil
}

// outcomeOf is settle without its effects: the outcome, and the refusal of credentials that
// must pause all work (nil when none).
func (c *Connector) outcomeOf(ev *InboxEvent, res Result, err error) (Outcome, *Failure) {
	if err == nil {
		return Outcome{Status: res.Status, ResultDoctype: res.Doctype, ResultName: res.Name, LastError: res.Note}, nil
	}
	var (
		w  *WaitError
		p  *ParkError
		mp *mapping.Park
		d  *DeadError
		a  *AmbiguousError
	)
	switch {
	case errors.As(err, &w):
		return Outcome{Status: StatusPending, NextAttemptAt: w.Until, LastError: w.Reason, WaitFor: w.On}, nil
	case errors.As(err, &p):
		return Outcome{Status: StatusParked, LastError: p.Reason, ResultDoctype: p.Doctype, ResultName: p.Name, WaitFor: p.On}, nil
	case errors.As(err, &mp):
		return Outcome{Status: StatusParked, LastError: mp.Error()}, nil
	case errors.As(err, &d):
		return Outcome{Status: StatusDead, LastError: d.Reason}, nil
	case errors.As(err, &a):
		return Outcome{Status: StatusPending, CountAttempt: true, NextAttemptAt: a.Fence.Add(time.Second), LastError: a.Error()}, nil
	}
	return c.failureOutcome(ev, err)
}

// failureOutcome is outcomeOf for a failed call: a client's *Failure, or the store's error.
func (c *Connector) failureOutcome(ev *InboxEvent, err error) (Outcome, *Failure) {
	op, cause := "", err
	var se *stageError
	if errors.As(err, &se) {
		op, cause = se.op+": ", se.err
	}
	f := FailureOf(cause)
	if errors.Is(cause, context.Canceled) || f.Interrupted() {
		// Shutdown interrupted the call: not the event's failure, so no attempt is spent.
		return Outcome{Status: StatusPending, NextAttemptAt: c.now(), LastError: op + "interrupted by shutdown"}, nil
	}
	if f == nil {
		return c.retryOutcome(ev, 0, op+cause.Error()), nil
	}
	switch {
	case f.PausesWork():
		return Outcome{Status: StatusPending, NextAttemptAt: c.now().Add(c.cfg.Worker.PauseRecheck.D()), LastError: "paused: " + op + f.Reason()}, f
	case f.Final():
		return Outcome{Status: StatusParked, LastError: op + f.parkReason()}, nil
	case f.Retryable() && !f.Counted():
		return c.throttledOutcome(f, op), nil
	}
	return c.retryOutcome(ev, f.RetryAfter, op+f.Reason()), nil
}

// throttledOutcome is the wait after the service asked for a slower pace (ERPNext or Razorpay
// 429, a 503 with Retry-After; DESIGN.md §4 step 7): nothing was done, so no attempt is spent.
// The event is due again when the client's shared pace allows — the service's Retry-After, or
// the pause the client chose without one (internal/throttle), at least a second — plus up to a
// quarter of it at random, so the events it held do not all come back in the same instant.
// Meanwhile every call through that client waits on the same gate: workers block there on a
// timer, they do not spin.
//
// A Retry-After longer than the client's cap (erpnext.max_retry_after, razorpay.max_retry_after;
// 5 min by default) was cut to it by the client: it is logged here and said in last_error.
func (c *Connector) throttledOutcome(f *Failure, op string) Outcome {
	after := max(f.RetryAfter, time.Second)
	after += time.Duration(mrand.Int64N(int64(after/4) + 1))
	note := "asked for a slower pace; no attempt spent"
	if f.Asked > f.RetryAfter {
		note = fmt.Sprintf("asked to wait %s, honoured %s (%s); no attempt spent", f.Asked.Round(time.Second), f.RetryAfter, capKey(f.System))
		c.log.Warn().Str("system", f.System).Dur("retry_after_asked", f.Asked).Dur("retry_after_honoured", f.RetryAfter).
			Msg("Retry-After longer than " + capKey(f.System) + ": capped")
	}
	return Outcome{Status: StatusPending, NextAttemptAt: c.now().Add(after),
		LastError: "not now: " + op + f.Reason() + " (" + note + ")"}
}

// capKey is the configuration key that caps system's Retry-After.
func capKey(system string) string {
	if system == SystemRazorpay {
		return "razorpay.max_retry_after"
	}
	return "erpnext.max_retry_after"
}

// retryOutcome is a retry that spends an attempt, after the given delay or the backoff.
func (c *Connector) retryOutcome(ev *InboxEvent, after time.Duration, reason string) Outcome {
	if after <= 0 {
		after = c.backoff(ev.Attempts + 1)
	}
	return Outcome{Status: StatusPending, CountAttempt: true, NextAttemptAt: c.now().Add(after), LastError: reason}
}
