package razorpaysim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"syscall"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// ladder is the observed retry schedule per (endpoint, event) as offsets from the first
// attempt (spec/razorpay.md §1.5): 15 attempts, the last at ~22.8 h. The 0.2 s immediate retry
// is added separately.
var ladder = []time.Duration{
	0, 7 * time.Second, 19 * time.Second, 40 * time.Second, 82 * time.Second,
	162 * time.Second, 324 * time.Second, 648 * time.Second, 1290 * time.Second,
	2580 * time.Second, 5148 * time.Second, 10260 * time.Second, 20520 * time.Second,
	41040 * time.Second, 82080 * time.Second,
}

// retryWindow is how long after its creation an event is retried (spec/razorpay.md §1.5).
const retryWindow = 24 * time.Hour

// immediateRetry reports whether event gets the extra 0.2 s retry after a 5xx or a dropped
// connection (spec/razorpay.md §1.5): the event catalogue's RetriedAtOnce.
func immediateRetry(event string) bool {
	info, _ := razorpay.LookupEvent(event)
	return info.RetriedAtOnce
}

// RetryLadder returns the unscaled delivery schedule as offsets from the first attempt
// (spec/razorpay.md §1.5): 0, 7 s, 19 s, 40 s, 82 s, then doubling to 22.8 h; 15 entries. A 5xx
// or dropped connection on payment.authorized, payment.captured or order.paid adds one retry
// 0.2 s after that attempt (16 deliveries at most).
func RetryLadder() []time.Duration { return slices.Clone(ladder) }

// event is one webhook event: its body and signatures are fixed at creation, so every retry
// and replay is byte-identical (spec/razorpay.md §1.6).
type event struct {
	id, name   string
	createdAt  int64
	created    time.Time // real time, for the retry and replay windows
	body       []byte
	sig        string // signed with the default endpoint's secret, as EventRecord.Signature shows
	lost       bool
	delivered  bool
	finished   bool
	attempts   []Attempt
	deliveries []*delivery // one per endpoint that was enabled, subscribed and had a URL
}

// delivery is one event's delivery to one endpoint (the retry ladder runs per endpoint and
// event, spec/razorpay.md §1.5); delivered and finished are guarded by s.mu.
type delivery struct {
	ep        *endpoint
	sig       string
	delivered bool
	finished  bool
}

// signature signs body with secret as the faults say; the caller holds s.mu.
func (wh *webhooks) signature(secret, prev string, body []byte) string {
	switch {
	case wh.st.faults.WrongSecret:
		secret = "wrong:" + secret
	case wh.st.faults.PreviousSecret && prev != "":
		secret = prev
	}
	if secret == "" {
		return ""
	}
	return razorpay.Sign(secret, body)
}

// newEvent renders and signs an event for every endpoint it goes to; the caller holds s.mu.
func (wh *webhooks) newEvent(name string, contains []string, payload obj, createdAt int64, sortKeys bool) *event {
	c := make([]any, len(contains))
	for i, n := range contains {
		c[i] = n
	}
	var env any = obj{
		{"entity", "event"}, {"account_id", wh.opt.AccountID}, {"event", name}, {"contains", c},
		{"payload", payload}, {"created_at", createdAt},
	}
	if sortKeys {
		env = sorted{env}
	}
	body := encode(env, wh.opt.Quirks)
	e := &event{id: wh.st.randID(), name: name, createdAt: createdAt, created: time.Now(), body: body}
	for i, ep := range wh.endpoints {
		sig := wh.signature(ep.secret, ep.prevSecret, body)
		if i == 0 {
			e.sig = sig
		}
		if ep.url != "" && !ep.disabled && ep.subscribed(name) {
			e.deliveries = append(e.deliveries, &delivery{ep: ep, sig: sig})
		}
	}
	if wh.st.faults.CorruptBody && len(body) > 2 {
		e.body = slices.Clone(body)
		e.body[len(body)/2] ^= 0x01
	}
	return e
}

func wrap(entity obj) obj { return obj{{"entity", entity}} }

// paymentEvent builds payment.* and order.paid events; order is nil for payment.* events.
func (wh *webhooks) paymentEvent(name string, p *razorpay.Payment, o *razorpay.Order) *event {
	payload := obj{{"payment", wrap(wh.render.renderPayment(p))}}
	contains := []string{"payment"}
	if o != nil {
		payload = append(payload, field{"order", wrap(wh.render.renderOrder(o))})
		contains = append(contains, "order")
	}
	return wh.newEvent(name, contains, payload, wh.now().Unix(), false)
}

// linkEvent builds payment_link.* events: keys sorted, created_at = the link's creation time
// (spec/razorpay.md §2.1 quirks).
func (wh *webhooks) linkEvent(name string, rec *payRec) *event {
	lr := wh.st.links[rec.linkID]
	p := rec.p
	payload := obj{{"payment_link", wrap(wh.render.renderLink(&lr.l, nil))}}
	if or, ok := wh.st.orders[p.OrderID]; ok {
		payload = append(payload, field{"order", wrap(wh.render.renderOrder(&or.o))})
	}
	payload = append(payload, field{"payment", wrap(wh.render.renderPayment(&p))})
	return wh.newEvent(name, []string{"payment_link", "order", "payment"}, payload, lr.l.CreatedAt, true)
}

// refundEvent builds refund.* events with the payment snapshot of that moment.
func (wh *webhooks) refundEvent(name string, r *razorpay.Refund, p *razorpay.Payment) *event {
	payload := obj{{"refund", wrap(wh.render.renderRefund(r))}, {"payment", wrap(wh.render.renderPayment(p))}}
	return wh.newEvent(name, []string{"refund", "payment"}, payload, wh.now().Unix(), false)
}

// ordering resolves an Ordering option against the faults; the caller holds s.mu.
func (wh *webhooks) ordering(o Ordering) Ordering {
	if o != "" {
		return o
	}
	if wh.st.faults.Ordering != "" {
		return wh.st.faults.Ordering
	}
	return InOrder
}

// dispatch records a batch of events of one business fact and starts delivering them: per
// endpoint, first attempts go out one after another in the given ordering (the same for every
// endpoint). The caller holds s.mu.
func (wh *webhooks) dispatch(batch []*event, order Ordering, dup, lose bool) {
	if len(batch) == 0 {
		return
	}
	wh.events = append(wh.events, batch...)
	if lose || wh.life.ctx.Err() != nil {
		for _, e := range batch {
			e.lost, e.finished = lose, true
			for _, d := range e.deliveries {
				d.finished = true
			}
		}
		return
	}
	seq := slices.Clone(batch)
	switch order {
	case Reversed:
		slices.Reverse(seq)
	case Shuffled:
		wh.st.rnd.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
	}
	dup = dup || wh.st.faults.Duplicate
	for _, ep := range wh.endpoints {
		var mine []job
		for _, e := range seq {
			for _, d := range e.deliveries {
				if d.ep == ep {
					mine = append(mine, job{e, d})
				}
			}
		}
		if len(mine) > 0 {
			wh.life.wg.Add(1)
			go wh.deliverBatch(mine, dup)
		}
	}
	for _, e := range batch {
		if len(e.deliveries) == 0 {
			e.finished = true
		}
	}
}

// job is one event's delivery to one endpoint.
type job struct {
	e *event
	d *delivery
}

// deliverBatch sends first attempts in order, then hands failed deliveries to their retry
// ladder.
func (wh *webhooks) deliverBatch(seq []job, dup bool) {
	defer wh.life.wg.Done()
	for _, j := range seq {
		start := time.Now()
		r := wh.attempt(j, false, false)
		switch {
		case r.ok:
			if dup {
				wh.attempt(j, true, false)
			}
			wh.finish(j, true)
		case r.skipped:
			wh.finish(j, false)
		default:
			wh.st.mu.Lock()
			if wh.life.ctx.Err() != nil {
				wh.st.mu.Unlock()
				return
			}
			wh.life.wg.Add(1)
			wh.st.mu.Unlock()
			go wh.retry(j, start, r.immediate && immediateRetry(j.e.name), dup)
		}
	}
}

// retry walks the scaled ladder for one delivery until a success, the 24 h window, the
// endpoint being disabled, or Close.
func (wh *webhooks) retry(j job, start time.Time, immediate, dup bool) {
	defer wh.life.wg.Done()
	windowEnd := j.e.created.Add(wh.life.scaled(retryWindow))
	// try reports whether the delivery is over: delivered, or its endpoint disabled.
	try := func() (over, delivered bool) {
		r := wh.attempt(j, false, false)
		if r.ok && dup {
			wh.attempt(j, true, false)
		}
		return r.ok || r.skipped, r.ok
	}
	if immediate {
		if !wh.life.sleep(wh.life.scaled(200 * time.Millisecond)) {
			return
		}
		if over, ok := try(); over {
			wh.finish(j, ok)
			return
		}
	}
	for _, off := range ladder[1:] {
		at := start.Add(wh.life.scaled(off))
		if at.After(windowEnd) {
			break
		}
		if !wh.life.sleep(time.Until(at)) {
			return
		}
		if over, ok := try(); over {
			wh.finish(j, ok)
			return
		}
	}
	wh.finish(j, false)
}

// finish closes one delivery; the event is finished when all its deliveries are, and
// delivered when all of them succeeded.
func (wh *webhooks) finish(j job, delivered bool) {
	wh.st.mu.Lock()
	defer wh.st.mu.Unlock()
	if !j.d.finished {
		j.d.finished, j.d.delivered = true, delivered
	}
	j.e.settle()
}

// settle recomputes the event's finished and delivered flags from its deliveries; the caller
// holds s.mu.
func (e *event) settle() {
	if e.lost || len(e.deliveries) == 0 {
		e.finished = true
		return
	}
	all, ok := true, true
	for _, d := range e.deliveries {
		all = all && d.finished
		ok = ok && d.delivered
	}
	e.finished, e.delivered = all, all && ok
}

// outcome is the result of one attempt: ok is a 2xx within DeliveryTimeout
// (spec/razorpay.md §1.4); immediate means the failure was a 5xx or a dropped connection (not a
// timeout or 4xx); skipped means nothing was sent because the endpoint is disabled; attempt is
// what was recorded.
type outcome struct {
	ok, immediate, skipped bool
	attempt                Attempt
}

// attempt POSTs the event to the delivery's endpoint once and records the attempt on the event
// and the outcome on the endpoint (auto-disable, checklist item 8).
func (wh *webhooks) attempt(j job, dup, replay bool) outcome {
	wh.st.mu.Lock()
	skip := j.d.ep.disabled || (!replay && j.d.finished) // finished early: given up when the endpoint was disabled
	wh.st.mu.Unlock()
	if skip {
		return outcome{skipped: true}
	}
	ctx, cancel := context.WithTimeout(wh.life.ctx, wh.opt.DeliveryTimeout)
	defer cancel()
	var out outcome
	a := Attempt{At: wh.now(), Duplicate: dup, Webhook: j.d.ep.id, Replay: replay}
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.d.ep.url, bytes.NewReader(j.e.body))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "Razorpay-Webhook/v1")
		req.Header.Set("X-Razorpay-Event-Id", j.e.id)
		req.Header.Set("Request-Id", j.e.id)
		req.Header.Set("Accept-Encoding", "gzip")
		if j.d.sig != "" {
			req.Header.Set("X-Razorpay-Signature", j.d.sig)
		}
		var resp *http.Response
		resp, err = wh.hc.Do(req)
		a.Elapsed = time.Since(start)
		if err == nil {
			a.Status = resp.StatusCode
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // the body is ignored
			_ = resp.Body.Close()
		}
	}
	if err != nil {
		a.Error = err.Error()
		out.immediate = !errors.Is(err, context.DeadlineExceeded)
	}
	a.Success = err == nil && a.Status >= 200 && a.Status <= 299 && a.Elapsed <= wh.opt.DeliveryTimeout
	if err == nil && a.Status >= 500 {
		out.immediate = true
	}
	out.ok, out.attempt = a.Success, a
	wh.st.mu.Lock()
	j.e.attempts = append(j.e.attempts, a)
	if wh.life.ctx.Err() == nil {
		wh.recordOutcome(j.d.ep, a.Success, start)
	}
	wh.st.mu.Unlock()
	return out
}

// errNotLoopback refuses a webhook target that is not a loopback address.
var errNotLoopback = errors.New("razorpaysim: only loopback addresses are webhook targets")

// loopbackClient dials loopback addresses only (checked on the resolved address), never uses a
// proxy, never follows redirects (a 3xx is a failed delivery) and never decompresses.
func loopbackClient() *http.Client {
	d := &net.Dialer{
		Timeout: 5 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				return fmt.Errorf("%w: %s", errNotLoopback, host)
			}
			return nil
		},
	}
	tr := &http.Transport{
		DialContext:         d.DialContext,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
