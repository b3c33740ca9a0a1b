package reconcile

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// frappeTime is how Frappe writes datetimes in filters and `modified` (the site's time zone).
const frappeTime = "2006-01-02 15:04:05.000000"

// integrationSweep is the sweep of ERPNext's Integration Requests (reconcile.integration_requests)
// over the reconcile window (from, to), read in the site's time zone (loc); their payments
// are judged and queued by payments, with their Payment Request.
type integrationSweep struct {
	q        *queue
	rd       reads
	erp      erpNext
	loc      *time.Location
	from, to time.Time
	// authorizedAge and capture are reconcile.authorized_age and reconcile.capture_authorized.
	authorizedAge time.Duration
	capture       bool
	payments      *paymentSweep
}

// run reads the Integration Requests of service Razorpay modified in the
// window, in status Queued, Authorized or Completed, whose data names a razorpay_payment_id
// (ERPNext's own checkout; it books nothing for guests, spec/erpnext.md §5.4). Nothing is ever
// written to an Integration Request. A payment not yet booked or queued is fetched from
// Razorpay: captured → queued with its Payment Request in notes.payment_request; authorized for
// longer than reconcile.authorized_age → reported (captured first only with
// reconcile.capture_authorized). A 403 or 501 from ERPNext (the API user lacks System Manager
// read, or the site does not have the doctype) skips the sweep with a warning.
func (s *integrationSweep) run(ctx context.Context) error {
	var irs []connector.IntegrationRequest
	err := s.erp.List(ctx, frappe.DoctypeIntegrationRequest, frappe.ListOptions{
		Fields: connector.IntegrationRequestFields,
		Filters: []frappe.Filter{
			{"integration_request_service", "=", "Razorpay"},
			{"status", "in", []string{"Queued", "Authorized", "Completed"}},
			{"modified", ">=", s.from.In(s.loc).Format(frappeTime)},
			{"modified", "<=", s.to.In(s.loc).Format(frappeTime)},
		},
		OrderBy: "modified asc",
		All:     true,
	}, &irs)
	if err != nil {
		var fe *frappe.Error
		if errors.As(err, &fe) && (fe.Status == http.StatusForbidden || fe.Status == http.StatusNotImplemented) {
			s.q.t.warn("Integration Request sweep skipped: ERPNext answered %d (%s); give the API user read access to Integration Request (System Manager) or set reconcile.integration_requests: false",
				fe.Status, fe.Message())
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.q.t.warn("Integration Request sweep skipped: %v", err)
		return nil
	}
	for i, ir := range irs {
		s.q.t.progress("integration requests", i+1, len(irs))
		if err := s.integrationRequest(ctx, ir); err != nil {
			return err
		}
	}
	return nil
}

func (s *integrationSweep) integrationRequest(ctx context.Context, ir connector.IntegrationRequest) error {
	d, ok := connector.ParseIRData(ir.Data)
	if !ok {
		s.q.t.warn("Integration Request %s: data is not JSON; skipped", ir.Name)
		return nil
	}
	if d.PaymentID == "" {
		return nil // checkout not completed: nothing was paid
	}
	pr := ir.PaymentRequest(d)
	base := Item{Kind: KindPayment, ID: d.PaymentID, Source: SourceIntegrationRequest, IntegrationRequest: ir.Name, PaymentRequest: pr}
	t := s.q.t
	if t.handled[d.PaymentID] {
		return nil // a second Integration Request naming the same payment
	}
	cv, err := s.q.cover(ctx, d.PaymentID, connector.RouteReceipt)
	if err != nil {
		return err
	}
	if cv.cov != uncovered {
		t.rep.IntegrationRequests.Scanned++
		t.handled[d.PaymentID] = true
		t.judgeCovered(base, cv)
		return nil
	}
	p, err := s.rd.getPayment(ctx, d.PaymentID)
	if notFound(err) {
		s.q.t.warn("Integration Request %s names payment %s, which Razorpay does not know (test and live keys see different data)", ir.Name, d.PaymentID)
		return nil
	}
	if err != nil {
		if authFault(err) || ctx.Err() != nil {
			return err
		}
		s.q.t.warn("Integration Request %s: %v", ir.Name, err)
		return nil
	}
	if p.Status == "authorized" {
		if p, err = s.authorized(ctx, base, p); err != nil || p == nil {
			return err
		}
	}
	if !captured(p) {
		return nil // failed or created: nothing to book
	}
	return s.payments.payment(ctx, p, SourceIntegrationRequest, ir.Name, pr)
}

// authorized reports a payment left authorized past reconcile.authorized_age, or captures it
// when reconcile.capture_authorized is on (never in a dry run: it is reported as "would
// capture"). It returns the captured payment, or nil when there is nothing to book.
func (s *integrationSweep) authorized(ctx context.Context, it Item, p *razorpay.Payment) (*razorpay.Payment, error) {
	it.AmountMinor, it.Currency, it.CreatedAt = p.Amount, p.Currency, time.Unix(p.CreatedAt, 0).UTC()
	t := s.q.t
	age := s.q.now().Sub(it.CreatedAt)
	if age < s.authorizedAge {
		return nil, nil // ERPNext's scheduler captures within minutes
	}
	it.Status = "authorized"
	it.Reason = fmt.Sprintf("authorized %s ago and not captured; Razorpay refunds it automatically 3 days after authorisation. Capture it in the Dashboard, or set reconcile.capture_authorized: true",
		age.Truncate(time.Minute))
	switch {
	case s.capture && s.q.dryRun:
		it.Reason = "would capture: " + it.Reason
	case s.capture:
		got, err := s.captureOne(ctx, p)
		if err == nil {
			t.rep.IntegrationRequests.Captured++
			return got, nil
		}
		if authFault(err) || ctx.Err() != nil {
			return nil, err
		}
		it.Reason = fmt.Sprintf("capture failed: %v", err)
	}
	t.rep.IntegrationRequests.Scanned++
	t.handled[p.ID] = true
	t.rep.Authorized = append(t.rep.Authorized, it)
	return nil, nil
}

// captureOne captures an authorized payment for its whole amount (POST /v1/payments/{id}/capture,
// spec/razorpay.md §5.2). A capture is a write: it is sent once, never retried blindly. When it
// fails the payment is read back, because the capture may have happened all the same (a lost
// response, or another process capturing first: Razorpay then answers 400 "already
// captured"); a payment that reads back captured is returned as captured.
func (s *integrationSweep) captureOne(ctx context.Context, p *razorpay.Payment) (*razorpay.Payment, error) {
	got, err := s.rd.rzp.Capture(ctx, p.ID, p.Amount, p.Currency)
	if err == nil {
		s.q.t.log.Info().Str("component", "reconcile").Str("payment_id", p.ID).Msg("captured an authorized payment (reconcile.capture_authorized)")
		return got, nil
	}
	if authFault(err) || ctx.Err() != nil {
		return nil, fmt.Errorf("capture %s: %w", p.ID, err)
	}
	back, rerr := s.rd.getPayment(ctx, p.ID)
	if rerr == nil && captured(back) {
		return back, nil
	}
	return nil, fmt.Errorf("capture %s: %w", p.ID, err)
}
