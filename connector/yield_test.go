package connector_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Giving way to a webhook burst (worker.intake_first_above, issue 13): while more webhooks than
// the limit arrived in the last second, only worker 0 claims events.

// redeliver sends a delivery of body under eventID again, as Razorpay retries it: a duplicate.
func (r *rig) redeliver(eventID string, body []byte) {
	r.t.Helper()
	dup, err := r.conn.Receive(context.Background(), connector.Delivery{Body: body, Signature: razorpay.Sign(secretNew, body), EventID: headerID(eventID)})
	if err != nil || !dup {
		r.t.Fatalf("redeliver %s: duplicate %v, %v", eventID, dup, err)
	}
}

// Every delivery whose signature verifies counts in the intake's rate, duplicates, bad event
// ids and unparseable bodies included; an unsigned one does not. The count leaves the rate a
// second later on the connector's clock.
func TestIntakeCountsVerifiedWebhooksOfTheLastSecond(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	body := captured(t, "pay_T3stRate000001", 40000, "", nil)
	r.deliver("C1", body)
	r.redeliver("C1", body)
	r.clock.advance(500 * time.Millisecond)
	if _, err := r.conn.Receive(ctx, connector.Delivery{Body: body, Signature: razorpay.Sign("not-the-secret", body), EventID: headerID("C2")}); !errors.Is(err, connector.ErrBadSignature) {
		t.Fatalf("unsigned: %v", err)
	}
	if _, err := r.conn.Receive(ctx, connector.Delivery{Body: body, Signature: razorpay.Sign(secretNew, body), EventID: "short"}); !errors.Is(err, connector.ErrBadEventID) {
		t.Fatalf("bad event id: %v", err)
	}
	bad := []byte(`{"entity":"event","event":1}`)
	if _, err := r.conn.Receive(ctx, connector.Delivery{Body: bad, Signature: razorpay.Sign(secretNew, bad), EventID: headerID("C3")}); err != nil {
		t.Fatalf("unparseable: %v", err)
	}
	if got := sample(t, r.conn, connector.MetricWebhooksLastSecond, "", ""); got != 4 {
		t.Errorf("%s = %v, want 4 (accepted, duplicate, bad id, unparseable; not the unsigned)", connector.MetricWebhooksLastSecond, got)
	}
	r.clock.advance(500 * time.Millisecond) // the first two are a second old
	if got := sample(t, r.conn, connector.MetricWebhooksLastSecond, "", ""); got != 2 {
		t.Errorf("%s a second after the first two = %v, want 2", connector.MetricWebhooksLastSecond, got)
	}
	r.clock.advance(500 * time.Millisecond)
	if got := sample(t, r.conn, connector.MetricWebhooksLastSecond, "", ""); got != 0 {
		t.Errorf("%s a second after the last = %v, want 0", connector.MetricWebhooksLastSecond, got)
	}
}

// holdFirst holds the first Payment Entry insert until release is closed, after closing ready;
// later inserts pass at once (gate's later inserts wait for the first one's release).
type holdFirst struct {
	ready, release chan struct{}
	taken          atomic.Bool
	once           sync.Once
}

// let releases the held insert (more than once is fine).
func (g *holdFirst) let() { g.once.Do(func() { close(g.release) }) }

func newHoldFirst() *holdFirst {
	return &holdFirst{ready: make(chan struct{}), release: make(chan struct{})}
}

func (g *holdFirst) front(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost && req.URL.Path == "/api/resource/"+frappe.DoctypePaymentEntry && g.taken.CompareAndSwap(false, true) {
			close(g.ready)
			select {
			case <-g.release:
			case <-time.After(time.Minute):
			}
		}
		next.ServeHTTP(w, req)
	})
}

// burstRig is two workers, the first Payment Entry insert held at a gate, and two payments due
// on two invoices, delivered with two repeats of the first: 4 webhooks in the rig's (frozen)
// second. It returns the rig, the gate and the two invoices.
func burstRig(t *testing.T, limit int) (*rig, *holdFirst, [2]string) {
	g := newHoldFirst()
	r := newRig(t, withFront(g.front), withConfig(func(c *connector.Config) {
		c.Workers = 2
		c.Worker.Poll = connector.Duration(10 * time.Millisecond)
		c.Worker.IntakeFirstAbove = limit
	}))
	t.Cleanup(func() { g.let(); r.conn.Drain() }) // also when the test failed half-way
	inv := [2]string{r.invoice("Test Customer", "400.00"), r.invoice("Test Customer", "600.00")}
	first := captured(t, "pay_T3stYield00001", 40000, inv[0], nil)
	r.deliver("Y1", first)
	r.deliver("Y2", captured(t, "pay_T3stYield00002", 60000, inv[1], nil))
	r.redeliver("Y1", first)
	r.redeliver("Y1", first)
	return r, g, inv
}

// runBurst starts the rig's workers; the returned function releases the gate, waits for both
// events to be done, drains, waits for Run to return and checks that two entries were sent.
func (r *rig) runBurst(g *holdFirst) func() {
	t := r.t
	ran := make(chan struct{})
	go func() { r.conn.Run(context.Background()); close(ran) }()
	return func() {
		t.Helper()
		g.let()
		eventually(t, "both booked", func() bool {
			return r.event("Y1").Status == connector.StatusDone && r.event("Y2").Status == connector.StatusDone
		})
		r.conn.Drain()
		select {
		case <-ran:
		case <-time.After(30 * time.Second):
			t.Fatal("Run did not return after Drain")
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if len(r.sent) != 2 {
			t.Errorf("%d Payment Entries inserted, want 2", len(r.sent))
		}
	}
}

// heldAndOther returns, once the first insert is held, the event worker 0 holds and the other
// one: during a burst only worker 0 claims, so the held event is the one processing.
func (r *rig) heldAndOther(g *holdFirst) (held, other string) {
	r.t.Helper()
	waitHeld(r.t, g)
	if r.event("Y1").Status == connector.StatusProcessing {
		return "Y1", "Y2"
	}
	return "Y2", "Y1"
}

func waitHeld(t *testing.T, g *holdFirst) {
	t.Helper()
	select {
	case <-g.ready:
	case <-time.After(time.Minute):
		t.Fatal("no worker came to its insert")
	}
}

// With 4 webhooks in the last second and a limit of 3, worker 1 waits while worker 0 holds
// the first event; once the clock has moved a second on, worker 1 claims and books the other
// event while worker 0 still holds the first.
func TestWorkersGiveWayDuringAWebhookBurst(t *testing.T) {
	r, g, inv := burstRig(t, 3)
	finish := r.runBurst(g)
	held, other := r.heldAndOther(g)
	eventually(t, "worker 1 giving way", func() bool {
		if e := r.event(other); e.Status != connector.StatusPending {
			t.Fatalf("other event %s claimed during the burst: %s", other, e.Status)
		}
		return sample(t, r.conn, connector.MetricWorkersYielding, "", "") == 1
	})
	if e := r.event(held); e.Status != connector.StatusProcessing || !strings.Contains(e.LeaseOwner, "/w0/") {
		t.Fatalf("held event %s: %s by %q, want processing by worker 0", held, e.Status, e.LeaseOwner)
	}
	// Worker 1 gives way on a frozen clock: it cannot claim until the clock moves.
	if e := r.event(other); e.Status != connector.StatusPending || e.Attempts != 0 || e.LeaseOwner != "" {
		t.Fatalf("other event %s during the burst: %s, %d attempts, lease %q; want pending, untouched", other, e.Status, e.Attempts, e.LeaseOwner)
	}
	r.clock.advance(time.Second) // the burst's second has passed
	eventually(t, "the other event booked while the first is held", func() bool { return r.event(other).Status == connector.StatusDone })
	if e := r.event(held); e.Status != connector.StatusProcessing {
		t.Fatalf("held event %s is %s: worker 0 was let go", held, e.Status)
	}
	if got := sample(t, r.conn, connector.MetricWorkersYielding, "", ""); got != 0 {
		t.Errorf("%s after the burst = %v, want 0", connector.MetricWorkersYielding, got)
	}
	if got := sample(t, r.conn, connector.MetricWorkerYields, "", ""); got != 1 {
		t.Errorf("%s = %v, want 1", connector.MetricWorkerYields, got)
	}
	finish()
	for _, name := range inv {
		if si, _ := r.site.Doc(frappe.DoctypeSalesInvoice, name); minor(t, si["outstanding_amount"], 2) != 0 {
			t.Errorf("invoice %s outstanding %v", name, si["outstanding_amount"])
		}
	}
}

// worker.intake_first_above 0 turns giving way off: the same burst, and worker 1 books the
// other event while worker 0 holds the first, on the same frozen clock.
func TestWorkersDoNotGiveWayWhenTheLimitIsOff(t *testing.T) {
	r, g, _ := burstRig(t, 0)
	finish := r.runBurst(g)
	waitHeld(t, g)
	var other string
	eventually(t, "one event booked while the other is held", func() bool {
		for _, name := range []string{"Y1", "Y2"} {
			if r.event(name).Status == connector.StatusDone {
				other = name
				return true
			}
		}
		return false
	})
	held := map[string]string{"Y1": "Y2", "Y2": "Y1"}[other]
	if e := r.event(held); e.Status != connector.StatusProcessing {
		t.Fatalf("held event %s is %s", held, e.Status)
	}
	if got := sample(t, r.conn, connector.MetricWorkerYields, "", ""); got != 0 {
		t.Errorf("%s = %v, want 0", connector.MetricWorkerYields, got)
	}
	finish()
}
