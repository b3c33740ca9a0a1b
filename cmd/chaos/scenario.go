package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// invoicePlan is one Sales Invoice of the run, in whole rupees (so ERPNext's rounded total is
// the grand total) and the payments made against it.
type invoicePlan struct {
	Name, Customer string
	Total          int64 // paise
	Payments       []*paymentPlan
	Refunded       bool
}

// paymentPlan is one captured Razorpay payment. Order: paid through an order (so order.paid is
// sent too); ReceiptOnly: the invoice is named only by the order's receipt, not in the notes;
// Lost: no webhook is ever sent (reconcile must find it); Reordered: its events are sent in
// reverse order.
type paymentPlan struct {
	ID, Invoice                         string
	Amount, Fee                         int64 // paise; fee in INR paise, GST included
	Order, ReceiptOnly, Lost, Reordered bool
}

// refundPlan is one processed refund of a payment. CreditNote: the invoice has a credit note
// for exactly this amount (the refund is booked against it), else the refund parks. Early: its
// webhooks are sent before its payment's.
type refundPlan struct {
	ID, PaymentID, Invoice string
	Amount                 int64 // paise, whole rupees
	CreditNote, Early      bool
}

// scenario is the run's ground truth as it was made.
type scenario struct {
	Invoices []*invoicePlan
	Payments []*paymentPlan
	Refunds  []*refundPlan
	byID     map[string]*paymentPlan
}

// scenarioSettings shape the scenario; rates are probabilities.
type scenarioSettings struct {
	Payments      int     `json:"payments"`
	OrderShare    float64 `json:"order_paid_share"`         // payments paid through an order (order.paid sent)
	ReceiptOnly   float64 `json:"receipt_only_share"`       // of those, invoice only in the order receipt
	LostShare     float64 `json:"lost_share"`               // payments whose webhooks never come
	RefundShare   float64 `json:"refund_share"`             // refunds per payment
	CreditNotes   float64 `json:"refund_credit_note_share"` // refunds whose invoice has a credit note
	ReorderShare  float64 `json:"reordered_share"`          // payments (and refunds) whose events come in reverse
	DupShare      float64 `json:"duplicate_share"`          // webhooks sent twice
	DupConcurrent float64 `json:"duplicate_concurrent_share"`
}

// buildScenario creates customers, invoices and credit notes in the ERPNext simulator and the
// payments and refunds in the Razorpay simulator (events recorded, never delivered by it: the
// run sends them itself).
func buildScenario(site *erpnextsim.Site, rzp *razorpaysim.Sim, s scenarioSettings, rnd *rand.Rand) (*scenario, error) {
	sc := &scenario{byID: map[string]*paymentPlan{}}
	customers := 0
	for len(sc.Payments) < s.Payments {
		if len(sc.Invoices)%5 == 0 {
			customers++
			if err := site.AddCustomer(fmt.Sprintf("Chaos Customer %05d", customers)); err != nil {
				return nil, err
			}
		}
		inv := &invoicePlan{Customer: fmt.Sprintf("Chaos Customer %05d", customers), Total: (500 + rnd.Int64N(24500)) * 100}
		name, err := site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: inv.Customer, Submit: true,
			Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: razorpay.INR(inv.Total).Decimal()}}})
		if err != nil {
			return nil, fmt.Errorf("invoice: %w", err)
		}
		inv.Name = name
		sc.Invoices = append(sc.Invoices, inv)
		for _, amount := range splitPayments(inv.Total, min(1+rnd.IntN(3), s.Payments-len(sc.Payments)), rnd) {
			p, err := createPayment(rzp, inv, amount, s, rnd)
			if err != nil {
				return nil, err
			}
			sc.Payments = append(sc.Payments, p)
			sc.byID[p.ID] = p
			inv.Payments = append(inv.Payments, p)
		}
	}
	for n := int(float64(s.Payments)*s.RefundShare + 0.5); n > 0; n-- {
		if err := sc.addRefund(site, rzp, s, rnd); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// splitPayments returns m payment amounts for an invoice of total paise: mostly exactly the
// total, sometimes less (a partial payment) or more (an over-payment: the excess becomes an
// advance); every amount at least ₹1.
func splitPayments(total int64, m int, rnd *rand.Rand) []int64 {
	sum := total
	switch x := rnd.Float64(); {
	case x < 0.15:
		sum = total * (30 + rnd.Int64N(60)) / 100
	case x < 0.30:
		sum = total + 100 + rnd.Int64N(50000)
	}
	if sum < int64(m)*100 {
		m = 1
	}
	out := make([]int64, m)
	left := sum
	for i := 0; i < m-1; i++ {
		share := left / int64(m-i)
		out[i] = 100 + rnd.Int64N(max(1, share*2-200))
		if left-out[i] < int64(m-1-i)*100 {
			out[i] = 100
		}
		left -= out[i]
	}
	out[m-1] = left
	return out
}

// createPayment makes one captured payment for inv in the Razorpay simulator.
func createPayment(rzp *razorpaysim.Sim, inv *invoicePlan, amount int64, s scenarioSettings, rnd *rand.Rand) (*paymentPlan, error) {
	p := &paymentPlan{Invoice: inv.Name, Amount: amount, Order: rnd.Float64() < s.OrderShare,
		Lost: rnd.Float64() < s.LostShare, Reordered: rnd.Float64() < s.ReorderShare}
	p.ReceiptOnly = p.Order && rnd.Float64() < s.ReceiptOnly
	notes := razorpay.Notes{}
	if !p.ReceiptOnly {
		notes["invoice"] = inv.Name
	}
	opt := razorpaysim.PaymentOptions{Lose: true, NoOrder: !p.Order}
	if p.Order {
		opt.Receipt = inv.Name
	}
	methods := []string{"card", "upi", "netbanking", "wallet"}
	made, err := rzp.CreatePayment(razorpay.Payment{Amount: amount, Currency: "INR", Method: methods[rnd.IntN(len(methods))],
		Notes: notes, Email: fmt.Sprintf("buyer%d@example.com", rnd.IntN(100000))}, opt)
	if err != nil {
		return nil, fmt.Errorf("payment of %d paise: %w", amount, err)
	}
	p.ID = made.ID
	if made.Fee != nil {
		p.Fee = *made.Fee
	}
	return p, nil
}

// addRefund refunds part of one payment of an invoice not refunded yet, with a credit note for
// exactly the refund in ERPNext when the dice say so. The payment may be one that parks (a later
// payment of an invoice its siblings settled, "invoice already settled"): its refund then parks
// at once with the receipt's reason.
func (sc *scenario) addRefund(site *erpnextsim.Site, rzp *razorpaysim.Sim, s scenarioSettings, rnd *rand.Rand) error {
	for tries := 0; tries < 20; tries++ {
		inv := sc.Invoices[rnd.IntN(len(sc.Invoices))]
		p := inv.Payments[rnd.IntN(len(inv.Payments))]
		if inv.Refunded || p.Lost || p.Amount < 200 {
			continue
		}
		r := &refundPlan{PaymentID: p.ID, Invoice: inv.Name, CreditNote: rnd.Float64() < s.CreditNotes,
			Early: rnd.Float64() < s.ReorderShare}
		r.Amount = (1 + rnd.Int64N(max(1, p.Amount/200))) * 100 // whole rupees, at most half the payment
		if r.CreditNote {
			if _, err := site.AddSalesInvoice(erpnextsim.InvoiceSpec{Customer: inv.Customer, Submit: true, IsReturn: true,
				ReturnAgainst: inv.Name, Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: razorpay.INR(r.Amount).Decimal()}}}); err != nil {
				return fmt.Errorf("credit note for %s: %w", inv.Name, err)
			}
		}
		made, err := rzp.CreateRefund(razorpay.Refund{PaymentID: p.ID, Amount: r.Amount}, razorpaysim.RefundOptions{Lose: true})
		if err != nil {
			return fmt.Errorf("refund of %s: %w", p.ID, err)
		}
		r.ID = made.ID
		inv.Refunded = true
		sc.Refunds = append(sc.Refunds, r)
		return nil
	}
	return nil // every invoice tried is taken: fewer refunds
}

// recordedEvent is one webhook event the Razorpay simulator made, with the business key it is
// about (payment or refund id).
type recordedEvent struct {
	ID, Event, Key, PaymentID string
	Body                      []byte
	Refund                    bool
}

// recordedEvents reads every event the Razorpay simulator recorded, in creation order.
func recordedEvents(rzp *razorpaysim.Sim) ([]recordedEvent, error) {
	var out []recordedEvent
	for _, e := range rzp.State().Events {
		var env struct {
			Payload struct {
				Payment struct {
					Entity struct{ ID string } `json:"entity"`
				} `json:"payment"`
				Refund struct {
					Entity struct{ ID string } `json:"entity"`
				} `json:"refund"`
			} `json:"payload"`
		}
		if err := json.Unmarshal([]byte(e.Body), &env); err != nil {
			return nil, fmt.Errorf("event %s: %w", e.ID, err)
		}
		r := recordedEvent{ID: e.ID, Event: e.Event, Body: []byte(e.Body), PaymentID: env.Payload.Payment.Entity.ID}
		r.Key = r.PaymentID
		if id := env.Payload.Refund.Entity.ID; id != "" {
			r.Key, r.Refund = id, true
		}
		out = append(out, r)
	}
	return out, nil
}
