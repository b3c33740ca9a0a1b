package edge

import (
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
)

// pacer is a client that keeps one shared pace for all its calls (frappe.Client,
// razorpay.Client: internal/throttle).
type pacer interface {
	Throttle() frappe.ThrottleState
}

// systemPace is the pace of one system's client.
type systemPace struct {
	system string
	p      pacer
}

// Paces are the paces of the clients that keep one, ERPNext first.
type Paces []systemPace

// PacesOf keeps the clients that keep a pace (before they are wrapped: the edge hides it);
// fakes without one are left out.
func PacesOf(erp connector.ERPNext, rzp connector.RazorpayAPI) Paces {
	var out Paces
	if p, ok := erp.(pacer); ok {
		out = append(out, systemPace{connector.SystemERPNext, p})
	}
	if p, ok := rzp.(pacer); ok {
		out = append(out, systemPace{connector.SystemRazorpay, p})
	}
	return out
}

// SlowDown is the pace a service asked this process's client for (429, 503 with Retry-After).
type SlowDown struct {
	System string        // connector.SystemERPNext or connector.SystemRazorpay
	Until  time.Time     // no call to it starts before this; zero or past when none is paused
	Left   time.Duration // Until − now rounded up to whole seconds; 0 when no pause runs
	Capped uint64        // throttled answers whose Retry-After was longer than max_retry_after, since start
	Asked  time.Duration // the Retry-After of the latest capped answer (0 until one)
}

// Active reports whether the service's pause is still running.
func (s SlowDown) Active() bool { return s.Left > 0 }

// SlowDowns returns the pace of each client that keeps one: ERPNext, then the Razorpay API
// when it is configured. Reading it calls nobody. Left is measured on the wall clock, which
// the clients' pace keeps (not the core's injected clock).
func (ps Paces) SlowDowns() []SlowDown {
	now := time.Now()
	out := make([]SlowDown, 0, len(ps))
	for _, sp := range ps {
		st := sp.p.Throttle()
		s := SlowDown{System: sp.system, Until: st.Until, Capped: st.Capped, Asked: st.LastAsked}
		if left := st.Until.Sub(now); left > 0 {
			s.Left = (left + time.Second - 1).Truncate(time.Second)
		}
		out = append(out, s)
	}
	return out
}
