package razorpaysim

import (
	"maps"
	"net/http"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// PaymentOptions shape the order, link and webhooks that CreatePayment makes for a payment.
type PaymentOptions struct {
	// Lose records the payment's events but delivers none of them ("deliver": false in the
	// control API): the connector must find the payment by reconciling.
	Lose bool
	// NoOrder creates the payment without an order (QR code or virtual account style): no
	// order.paid event.
	NoOrder bool
	// Receipt is the receipt of the order created for the payment (e.g. a Sales Invoice name).
	Receipt string
	// Link makes the payment a payment-link payment: a plink_ is created with LinkReferenceID,
	// and a capture also emits payment_link.paid (checklist item 12).
	Link            bool
	LinkReferenceID string
	// LateAuthorisation emits payment.failed for the same pay_ id before the other events
	// (UPI retry or late authorisation, checklist item 11).
	LateAuthorisation bool
	// Ordering of the first deliveries; "" uses Faults.Ordering.
	Ordering Ordering
	// Duplicate delivers every event of this payment once more after a 2xx.
	Duplicate bool
	// OnHold keeps the payment out of settlements (no recon row) until SetOnHold releases it
	// (spec/razorpay.md checklist item 21).
	OnHold bool
}

// defaultFX are INR paise per major unit for a few currencies (illustrative only).
var defaultFX = map[string]int64{
	"USD": 8525, "EUR": 9250, "GBP": 10800, "AED": 2321, "SGD": 6350, "AUD": 5600,
	"CAD": 6200, "JPY": 57, "KWD": 27700, "BHD": 22600, "OMR": 22100,
}

// payRec is a payment as the simulator keeps it. added is the simulator-clock time it was
// added (unix nanoseconds, for list lag); capturedAt the unix second it was captured (0 while
// not captured), which the settlement cut-off compares; held keeps it out of settlements
// (on_hold); settled is set once a settlement paid it out.
type payRec struct {
	p          razorpay.Payment
	seq        int64
	added      int64
	capturedAt int64
	held       bool
	settled    bool
	linkID     string
}

type orderRec struct {
	o        razorpay.Order
	seq      int64
	payments []*payRec // in creation order
}

type linkRec struct {
	l          razorpay.PaymentLink
	seq        int64
	paymentIDs []string
}

// minimums are the documented minimum amounts (spec/razorpay.md §4).
var minimums = map[string]struct {
	minor int64
	text  string
}{
	"INR": {100, "The amount must be at least INR 1.00"},
	"USD": {50, "The amount must be at least $0.5"},
}

// CreatePayment is Sim.CreatePayment.
func (pm *payments) CreatePayment(p razorpay.Payment, opt PaymentOptions) (*razorpay.Payment, error) {
	pm.st.mu.Lock()
	defer pm.st.mu.Unlock()
	if err := pm.fillPayment(&p); err != nil {
		return nil, err
	}
	rec := pm.addPayment(p, opt)
	p = rec.p

	var batch []*event
	if opt.LateAuthorisation {
		failed := p
		failed.Status, failed.Captured, failed.Fee, failed.Tax = "failed", false, nil, nil
		failed.ErrorCode, failed.ErrorSource = "BAD_REQUEST_ERROR", "customer"
		failed.ErrorStep, failed.ErrorReason = "payment_authentication", "payment_timed_out"
		failed.ErrorDescription = "Payment was not completed on time."
		batch = append(batch, pm.hooks.paymentEvent(razorpay.EventPaymentFailed, &failed, nil))
	}
	switch p.Status {
	case "failed":
		batch = append(batch, pm.hooks.paymentEvent(razorpay.EventPaymentFailed, &p, nil))
	case "authorized":
		batch = append(batch, pm.hooks.paymentEvent(razorpay.EventPaymentAuthorized, &p, nil))
	case "captured":
		auth := authorizedSnapshot(p)
		batch = append(batch, pm.hooks.paymentEvent(razorpay.EventPaymentAuthorized, &auth, nil))
		batch = append(batch, pm.captureEvents(rec)...)
	}
	pm.hooks.dispatch(batch, pm.hooks.ordering(opt.Ordering), opt.Duplicate, opt.Lose)
	out := clonePayment(p)
	return &out, nil
}

// addPayment records a filled payment with its order and link (opt.NoOrder, Receipt, Link,
// LinkReferenceID) and indexes it; a captured one joins the settlement queue. No event is
// made. The caller holds s.mu.
func (pm *payments) addPayment(p razorpay.Payment, opt PaymentOptions) *payRec {
	now := pm.now()
	var order *orderRec
	if !opt.NoOrder {
		order = pm.attachOrder(&p, opt.Receipt)
	}
	rec := &payRec{p: p, seq: pm.st.nextSeq(), added: now.UnixNano(), held: opt.OnHold}
	if opt.Link {
		rec.linkID = pm.attachLink(&rec.p, opt.LinkReferenceID).l.ID
	}
	if order != nil {
		order.payments = append(order.payments, rec)
	}
	pm.st.payments[p.ID] = rec
	pm.st.payList.add(rec)
	if p.Status == "captured" {
		pm.settlements.markCaptured(rec, p.CreatedAt)
	}
	return rec
}

// attachOrder joins or creates the payment's order; the caller holds s.mu.
func (pm *payments) attachOrder(p *razorpay.Payment, receipt string) *orderRec {
	if p.OrderID == "" {
		p.OrderID = pm.st.freshID("order_", func(id string) bool { return pm.st.orders[id] != nil })
	}
	if or, ok := pm.st.orders[p.OrderID]; ok {
		or.o.Attempts++
		return or
	}
	o := razorpay.Order{
		ID: p.OrderID, Entity: "order", Amount: p.Amount, AmountDue: p.Amount, Currency: p.Currency,
		Receipt: receipt, Status: "attempted", Attempts: 1, Notes: p.Notes, // shared: never changed in place
		CreatedAt: p.CreatedAt - 30,
	}
	or := &orderRec{o: o, seq: pm.st.nextSeq()}
	pm.st.orders[o.ID] = or
	return or
}

// attachLink creates a payment link for the payment; the caller holds s.mu.
func (pm *payments) attachLink(p *razorpay.Payment, ref string) *linkRec {
	id := pm.st.randID()
	l := razorpay.PaymentLink{
		ID: "plink_" + id, Amount: p.Amount, Currency: p.Currency, Status: "created",
		ReferenceID: ref, Description: "Payment for " + ref, OrderID: p.OrderID,
		ShortURL: "https://rzp.io/rzp/" + id[:8], Notes: p.Notes, // shared: never changed in place
		CreatedAt: p.CreatedAt - 25*60, UpdatedAt: p.CreatedAt - 25*60,
	}
	l.Customer.Name, l.Customer.Email, l.Customer.Contact = "Test Customer", p.Email, p.Contact
	p.Description = "#" + id
	rec := &linkRec{l: l, seq: pm.st.nextSeq()}
	pm.st.links[l.ID] = rec
	return rec
}

// captureEvents marks the payment's order and link paid and returns payment.captured,
// order.paid and payment_link.paid; the caller holds s.mu.
func (pm *payments) captureEvents(rec *payRec) []*event {
	p := rec.p
	out := []*event{pm.hooks.paymentEvent(razorpay.EventPaymentCaptured, &p, nil)}
	if or, ok := pm.st.orders[p.OrderID]; ok {
		or.o.AmountPaid, or.o.AmountDue, or.o.Status = or.o.Amount, 0, "paid"
		o := or.o
		out = append(out, pm.hooks.paymentEvent(razorpay.EventOrderPaid, &p, &o))
	}
	if lr, ok := pm.st.links[rec.linkID]; ok {
		lr.l.AmountPaid, lr.l.Status, lr.l.UpdatedAt = p.Amount, "paid", p.CreatedAt+5
		lr.paymentIDs = append(lr.paymentIDs, p.ID)
		out = append(out, pm.hooks.linkEvent(razorpay.EventPaymentLinkPaid, rec))
	}
	return out
}

// Capture is Sim.Capture.
func (pm *payments) Capture(id string, amount int64, currency string) (*razorpay.Payment, error) {
	pm.st.mu.Lock()
	defer pm.st.mu.Unlock()
	rec, ok := pm.st.payments[id]
	if !ok {
		return nil, notFound()
	}
	switch {
	case rec.p.Status == "captured" || rec.p.Status == "refunded":
		return nil, badRequest("This payment has already been captured", "")
	case rec.p.Status != "authorized":
		return nil, badRequest("Only payments which have been authorized and not yet captured can be captured", "")
	case currency == "":
		return nil, badRequest("The currency field is required.", "currency")
	case currency != rec.p.Currency:
		return nil, badRequest("Currency should be same as payment currency", "currency")
	case amount != rec.p.Amount:
		return nil, badRequest("Capture amount must be equal to the amount authorized", "amount")
	}
	rec.p.Status, rec.p.Captured = "captured", true
	pm.setFees(&rec.p)
	pm.settlements.markCaptured(rec, pm.now().Unix())
	pm.hooks.dispatch(pm.captureEvents(rec), pm.hooks.ordering(""), false, false)
	out := clonePayment(rec.p)
	return &out, nil
}

// authorizedSnapshot is the payment as payment.authorized shows it: no fee or tax yet.
func authorizedSnapshot(p razorpay.Payment) razorpay.Payment {
	p.Status, p.Captured, p.Fee, p.Tax = "authorized", false, nil, nil
	return p
}

// clonePayment returns a deep copy to hand out; its maps are never nil. Stored notes and
// acquirer data are never changed in place, so payments, their orders and links share them.
func clonePayment(p razorpay.Payment) razorpay.Payment {
	p.Notes = maps.Clone(p.Notes)
	if p.Notes == nil {
		p.Notes = razorpay.Notes{}
	}
	p.AcquirerData = maps.Clone(p.AcquirerData)
	if p.AcquirerData == nil {
		p.AcquirerData = map[string]string{}
	}
	if p.Fee != nil {
		f := *p.Fee
		p.Fee = &f
	}
	if p.Tax != nil {
		t := *p.Tax
		p.Tax = &t
	}
	if p.BaseAmount != nil {
		b := *p.BaseAmount
		p.BaseAmount = &b
	}
	return p
}

// badRequest is a 400 BAD_REQUEST_ERROR validation error (spec/razorpay.md §5.3).
func badRequest(desc, fieldName string) *razorpay.APIError {
	return &razorpay.APIError{
		Status: http.StatusBadRequest, Code: razorpay.CodeBadRequest, Description: desc,
		Field: fieldName, Source: "business", Step: "payment_initiation", Reason: "input_validation_failed",
	}
}

// notFound is Razorpay's answer for an unknown id (spec/razorpay.md §5.2).
func notFound() *razorpay.APIError {
	return badRequest("The id provided does not exist", "")
}

// contactFormats are the ways Razorpay writes one Indian phone number in a payment's contact
// (spec/razorpay.md §3: with +91, bare, with a + and no country code); doublePlusContact is the
// typo of Razorpay's doc samples that Quirks.DoublePlusContact adds.
var contactFormats = []string{"+919000090000", "9000090000", "+9000090000"}

const doublePlusContact = "++919900000000"

// contact returns a generated payment's contact; the caller holds s.mu.
func (pm *payments) contact() string {
	formats := contactFormats
	if pm.opt.Quirks.DoublePlusContact {
		formats = append(formats[:len(formats):len(formats)], doublePlusContact)
	}
	return formats[pm.st.rnd.IntN(len(formats))]
}
