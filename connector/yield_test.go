package connector_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/testtime"
)

// During an intake burst (more than worker.intake_first_above webhooks in the last second of
// the connector's clock) only worker 0 claims: worker 1 waits while worker 0's booking is held
// at its insert, and claims the second payment once the clock has moved past the burst.
func TestWorkersYieldToAnIntakeBurst(t *testing.T) {
	g := newGate()
	r := newRig(t, withFront(g.holdFirst), withConfig(func(c *connector.Config) {
		c.Workers = 2
		c.Worker.IntakeFirstAbove = 2
		c.Worker.Poll = connector.Duration(10 * time.Millisecond)
		c.ERPNext.Timeout, c.ERPNext.ServerTimeout = connector.Duration(2*time.Minute), connector.Duration(2*time.Minute)
	}))
	ids := []string{"pay_T3stYield0001", "pay_T3stYield0002", "pay_T3stYield0003"}
	for i, id := range ids {
		r.deliver("Y"+string(rune('1'+i)), captured(t, id, 50000, r.invoice("Test Customer", "500.00"), nil))
	}
	if got := r.conn.IntakeCount(); got != 3 || !r.conn.IntakeFirst() {
		t.Fatalf("after 3 webhooks in the same instant: count %d, intake first %v; want 3, true", got, r.conn.IntakeFirst())
	}
	r.runWorkers()
	select {
	case <-g.ready:
	case <-time.After(testtime.Bound):
		t.Fatal("no payment reached its insert")
	}
	testtime.Until(t, "worker 1 yielding to the intake", func() bool {
		return sample(t, r.conn, connector.MetricWorkersYielding, "", "") == 1
	})
	processing := func() (n int) {
		for _, id := range []string{"Y1", "Y2", "Y3"} {
			if r.event(id).Status == connector.StatusProcessing {
				n++
			}
		}
		return n
	}
	if n := processing(); n != 1 {
		t.Fatalf("%d events claimed while the intake is in a burst, want 1 (worker 0's)", n)
	}

	r.clock.advance(time.Second) // the burst has passed: worker 1 claims again
	if r.conn.IntakeFirst() {
		t.Fatal("still intake first a second after the last webhook")
	}
	testtime.Until(t, "worker 1 booking while worker 0's insert is held", func() bool {
		done := 0
		for _, id := range []string{"Y1", "Y2", "Y3"} {
			if r.event(id).Status == connector.StatusDone {
				done++
			}
		}
		return done == 2 && processing() == 1
	})
	close(g.release)
	testtime.Until(t, "every payment booked", func() bool {
		for _, id := range []string{"Y1", "Y2", "Y3"} {
			if r.event(id).Status != connector.StatusDone {
				return false
			}
		}
		return true
	})
	for _, id := range ids {
		if es := r.entries(id); len(es) != 1 {
			t.Errorf("%s: %d Payment Entries, want 1", id, len(es))
		}
	}
	if v := sample(t, r.conn, connector.MetricWorkersYielding, "", ""); v != 0 {
		t.Errorf("%s = %v after the burst, want 0", connector.MetricWorkersYielding, v)
	}
}

// holdFirst holds the first Payment Entry insert until g.release is closed (or a minute
// passes), and lets every later one through at once (front, sync.Once, would make them wait
// for the first).
func (g *gate) holdFirst(next http.Handler) http.Handler {
	var n atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost && req.URL.Path == "/api/resource/"+frappe.DoctypePaymentEntry && n.Add(1) == 1 {
			close(g.ready)
			select {
			case <-g.release:
			case <-time.After(time.Minute):
			}
		}
		next.ServeHTTP(w, req)
	})
}
