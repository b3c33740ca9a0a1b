package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// bookingConcurrency is how many bookings talk to ERPNext at once on both sides: the daemon's
// defaults (workers 4, erpnext.max_concurrency 4), and the direct client's goroutines.
const bookingConcurrency = 4

// Booking is measurement (5), each figure the median over the runs.
type Booking struct {
	Profile         string             `json:"erpnext_profile"`
	RequestWorkers  int                `json:"erpnext_request_workers"`
	DelaysMs        map[string]float64 `json:"erpnext_delay_ms"`
	Payments        int                `json:"payments"`
	Concurrency     int                `json:"concurrency"`
	Runs            int                `json:"runs"`
	ConnectorPS     float64            `json:"connector_bookings_per_s"`
	DirectPS        float64            `json:"direct_bookings_per_s"`
	VsDirect        float64            `json:"booking_vs_direct"`
	CallsPerBooking float64            `json:"erpnext_calls_per_booking"`
	CallsByRoute    map[string]float64 `json:"erpnext_calls_per_booking_by_kind"`
	// CallsPerProcess are the site reads a daemon makes once for its life (perProcess), not
	// counted in CallsPerBooking; CallsByRoute still shows them spread over the bookings.
	CallsPerProcess float64    `json:"erpnext_calls_once_per_process"`
	DirectCalls     float64    `json:"direct_calls_per_booking"`
	EventToEntry    Latency    `json:"event_to_submitted_entry"`
	OneInvoice      OneInvoice `json:"one_invoice"`
}

// OneInvoice is the case of many payments on one invoice (they serialise on its lock).
type OneInvoice struct {
	Payments        int                `json:"payments"`
	CallsPerPayment float64            `json:"erpnext_calls_per_payment"`
	CallsByRoute    map[string]float64 `json:"erpnext_calls_per_payment_by_kind"`
	DrainSeconds    float64            `json:"drain_seconds"`
}

// bookingRun is one run of one side.
type bookingRun struct {
	perSecond float64
	calls     map[string]int
	latency   Latency
	drain     time.Duration
}

// site is the ERPNext simulator behind the latency proxy.
type site struct {
	erp   *erpSim
	proxy *latencyProxy
	url   string // the proxy's: what clients use
	close func()
}

// startSite starts the simulator with invoices and the real-v15 proxy in front of it.
func (b *bench) startSite(ctx context.Context, invoices []erpnextsim.InvoiceSpec) (*site, error) {
	erp, err := b.startERPNext(ctx, invoices, 0)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		erp.stop()
		return nil, err
	}
	px := newLatencyProxy(erp.url, realV15)
	srv := &http.Server{Handler: px, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(l)
	return &site{erp: erp, proxy: px, url: "http://" + l.Addr().String(), close: func() {
		srv.Close()
		erp.stop()
	}}, nil
}

// measureBooking runs (5) on e: per run, the connector and the direct client on 300 (short:
// fewer) payments of as many invoices, then the connector on payments of one invoice.
func (b *bench) measureBooking(ctx context.Context, e *engine) (Booking, error) {
	out := Booking{Profile: realV15.Name, RequestWorkers: realV15.Slots, Payments: b.bookings, Concurrency: bookingConcurrency,
		Runs: b.runs, DelaysMs: map[string]float64{}}
	for route, d := range realV15.Delays {
		out.DelaysMs[route] = ms(d)
	}
	out.DelaysMs[routeOther] = ms(realV15.Default)
	var conn, direct, one []bookingRun
	for run := 1; run <= b.runs; run++ {
		c, err := b.connectorBookings(ctx, e, b.bookings, b.bookings)
		if err != nil {
			return out, fmt.Errorf("connector bookings run %d: %w", run, err)
		}
		d, err := b.directBookings(ctx, b.bookings)
		if err != nil {
			return out, fmt.Errorf("direct bookings run %d: %w", run, err)
		}
		o, err := b.connectorBookings(ctx, e, b.oneInvoice, 1)
		if err != nil {
			return out, fmt.Errorf("one-invoice bookings run %d: %w", run, err)
		}
		b.progress("booking run %d/%d: connector %.2f/s (%.2f calls each, p99 %.0f ms), direct %.2f/s; %d on one invoice: %.1f s, %.2f calls each",
			run, b.runs, c.perSecond, perBooking(c.calls, b.bookings), c.latency.P99ms, d.perSecond, b.oneInvoice,
			o.drain.Seconds(), perBooking(o.calls, b.oneInvoice))
		conn, direct, one = append(conn, c), append(direct, d), append(one, o)
	}
	out.ConnectorPS = medianOf(conn, func(r bookingRun) float64 { return r.perSecond })
	out.DirectPS = medianOf(direct, func(r bookingRun) float64 { return r.perSecond })
	out.VsDirect = ratio(out.ConnectorPS, out.DirectPS)
	out.CallsPerBooking = medianOf(conn, func(r bookingRun) float64 { return perBooking(r.calls, b.bookings) })
	out.CallsPerProcess = medianOf(conn, func(r bookingRun) float64 { return float64(onceCalls(r.calls)) })
	out.DirectCalls = medianOf(direct, func(r bookingRun) float64 { return perBooking(r.calls, b.bookings) })
	out.CallsByRoute = medianByRoute(conn, b.bookings)
	lats := make([]Latency, len(conn))
	for i, r := range conn {
		lats[i] = r.latency
	}
	out.EventToEntry = medianLatency(lats)
	out.OneInvoice = OneInvoice{Payments: b.oneInvoice,
		CallsPerPayment: medianOf(one, func(r bookingRun) float64 { return perBooking(r.calls, b.oneInvoice) }),
		CallsByRoute:    medianByRoute(one, b.oneInvoice),
		DrainSeconds:    medianOf(one, func(r bookingRun) float64 { return round3(r.drain.Seconds()) })}
	return out, nil
}

func medianOf(runs []bookingRun, f func(bookingRun) float64) float64 {
	xs := make([]float64, len(runs))
	for i, r := range runs {
		xs[i] = f(r)
	}
	return round3(median(xs))
}

// perProcess are the kinds of call the connector makes once per process and keeps the answer
// (connector/site.go): the Mode of Payment's account for the company (paid_to) and the
// Company's round-off account. The first call of each kind is the process's, not a booking's;
// every further one of that kind counts per booking, so a cache that stopped holding would show.
var perProcess = []string{routeOther + " GET Mode of Payment", routeOther + " GET Company"}

// onceCalls is how many of calls are the process's own first reads of the perProcess kinds.
func onceCalls(calls map[string]int) int {
	n := 0
	for _, route := range perProcess {
		n += min(calls[route], 1)
	}
	return n
}

// perBooking is the number of calls, less the process's once-only reads (onceCalls), divided
// by n.
func perBooking(calls map[string]int, n int) float64 {
	total := 0
	for _, v := range calls {
		total += v
	}
	return ratio(float64(total-onceCalls(calls)), float64(n))
}

func medianByRoute(runs []bookingRun, n int) map[string]float64 {
	out := map[string]float64{}
	routes := map[string]bool{}
	for _, r := range runs {
		for k := range r.calls {
			routes[k] = true
		}
	}
	for route := range routes {
		out[route] = medianOf(runs, func(r bookingRun) float64 { return ratio(float64(r.calls[route]), float64(n)) })
	}
	return out
}

// connectorBookings delivers n payments at once to a fresh daemon in front of the real-v15
// site, payment k naming invoice k mod invoices (each invoice is seeded for exactly the
// payments that name it), and waits until every one is submitted in ERPNext. The figures run
// from the first webhook sent to the last entry submitted; the entries are then checked in
// the simulator itself.
func (b *bench) connectorBookings(ctx context.Context, e *engine, n, invoices int) (bookingRun, error) {
	var r bookingRun
	specs := invoicesFor(invoices)
	for i := range specs {
		specs[i].Items[0].Qty = int64(n / invoices)
	}
	st, err := b.startSite(ctx, specs)
	if err != nil {
		return r, err
	}
	defer st.close()
	db, err := e.fresh(ctx)
	if err != nil {
		return r, err
	}
	defer db.drop()
	dm, err := b.startDaemon(ctx, daemonSpec{db: db, erpURL: st.url})
	if err != nil {
		return r, err
	}
	defer dm.stop()
	co := newCorpus(runTag("K"), b.secret, invoices)
	sent := make([]time.Time, n)
	client := newLoadClient()
	var wg sync.WaitGroup
	var failed error
	var mu sync.Mutex
	for k := 0; k < n; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			id, body, sig := co.payment(k)
			sent[k] = time.Now()
			if o := deliver(ctx, client, dm.webhookURL, id, body, sig); o != outAccepted {
				mu.Lock()
				failed = fmt.Errorf("webhook of payment %d not accepted (outcome %d)", k, o)
				mu.Unlock()
			}
		}(k)
	}
	wg.Wait()
	if failed != nil {
		return r, failed
	}
	if err := waitBooked(ctx, st.proxy, db, n, time.Duration(n)*5*time.Second+time.Minute); err != nil {
		return r, fmt.Errorf("%w\n%s", err, dm.tail)
	}
	calls, submitted := st.proxy.snapshot()
	r.calls = calls
	var lat []time.Duration
	first, last := sent[0], time.Time{}
	for k := 0; k < n; k++ {
		at := submitted[co.paymentID(k)]
		lat = append(lat, at.Sub(sent[k]))
		first = minTime(first, sent[k])
		last = maxTime(last, at)
	}
	r.latency, r.drain = summarise(lat), last.Sub(first)
	r.perSecond = perSecond(n, r.drain)
	return r, checkEntries(ctx, st.erp.url, b.erpSecret, co, n, invoices)
}

// waitBooked waits until the site has answered n distinct payments with a submitted entry. It
// fails early when the inbox shows events that will never book (parked, dead), naming them.
func waitBooked(ctx context.Context, px *latencyProxy, db *database, n int, limit time.Duration) error {
	s, err := store.Open(ctx, db.Driver, db.DSN)
	if err != nil {
		return err
	}
	defer s.Close()
	deadline := time.Now().Add(limit)
	for next := time.Now(); px.submittedCount() < n; {
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d payments booked after %v", px.submittedCount(), n, limit)
		}
		if time.Now().After(next) {
			next = time.Now().Add(2 * time.Second)
			stuck, err := s.ListEvents(ctx, connector.EventFilter{Status: connector.StatusParked, Limit: 3})
			if err == nil && len(stuck) == 0 {
				stuck, err = s.ListEvents(ctx, connector.EventFilter{Status: connector.StatusDead, Limit: 3})
			}
			if err != nil {
				return err
			}
			if len(stuck) > 0 {
				return fmt.Errorf("event %s of %s is %s: %s", stuck[0].EventID, stuck[0].BusinessKey, stuck[0].Status, stuck[0].LastError)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// sortedKeys returns m's keys in order (stable output).
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
