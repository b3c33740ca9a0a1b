package razorpay

import (
	"slices"
	"strings"
)

// The Razorpay webhook event names the connector and the simulator know (spec/razorpay.md §2.2).
const (
	EventPaymentAuthorized        = "payment.authorized"
	EventPaymentCaptured          = "payment.captured"
	EventPaymentFailed            = "payment.failed"
	EventOrderPaid                = "order.paid"
	EventPaymentLinkPaid          = "payment_link.paid"
	EventPaymentLinkPartiallyPaid = "payment_link.partially_paid"
	EventPaymentLinkCancelled     = "payment_link.cancelled"
	EventPaymentLinkExpired       = "payment_link.expired"
	EventRefundCreated            = "refund.created"
	EventRefundProcessed          = "refund.processed"
	EventRefundFailed             = "refund.failed"
	EventRefundSpeedChanged       = "refund.speed_changed"
	EventDisputeCreated           = "payment.dispute.created"
	EventDisputeWon               = "payment.dispute.won"
	EventDisputeLost              = "payment.dispute.lost"
	EventDisputeClosed            = "payment.dispute.closed"
	EventDisputeUnderReview       = "payment.dispute.under_review"
	EventDisputeActionRequired    = "payment.dispute.action_required"
	EventSettlementProcessed      = "settlement.processed"
	EventPaymentDowntimeStarted   = "payment.downtime.started"
)

// The families of names outside the catalogue that LookupEvent still keys by their entity.
const (
	disputePrefix    = "payment.dispute."
	refundPrefix     = "refund."
	settlementPrefix = "settlement."
)

// Meaning is what an event means for the books (DESIGN.md §4 step 4); the connector's routes
// are built from it.
type Meaning int

// The meanings.
const (
	// MeansNothing: not booked by this version (skipped).
	MeansNothing Meaning = iota
	// MeansReceipt: a customer receipt for the payment id.
	MeansReceipt
	// MeansRefund: a refund for the refund id (refund.failed reverses it).
	MeansRefund
	// MeansDispute: recorded, counted and parked for a person.
	MeansDispute
	// MeansState: the payment's state is recorded only; a later capture books it.
	MeansState
	// MeansSettlement: a processed settlement's Journal Entry, for the settlement id.
	MeansSettlement
)

// EventInfo is one row of the event catalogue.
type EventInfo struct {
	Name    string  // e.g. "payment.captured"
	Meaning Meaning // what it means for the books
	// KeyEntity names the payload entity whose id is the event's business key: "payment",
	// "refund", "dispute" or "settlement".
	KeyEntity string
	// Offered: the console's Events filter offers the name (any other can be typed).
	Offered bool
	// RetriedAtOnce: Razorpay adds one retry 0.2 s after a 5xx or a dropped connection
	// (spec/razorpay.md §1.5); the simulator does the same.
	RetriedAtOnce bool
}

// catalogue is the one table of event names: the connector's routes, business keys and metric
// labels, the console's filter and the simulator's retry rule all derive from it. The offered
// names come first, in the order the console lists them.
var catalogue = []EventInfo{
	{EventPaymentCaptured, MeansReceipt, "payment", true, true},
	{EventOrderPaid, MeansReceipt, "payment", true, true},
	{EventPaymentLinkPaid, MeansReceipt, "payment", true, false},
	{EventPaymentLinkPartiallyPaid, MeansReceipt, "payment", true, false},
	{EventPaymentAuthorized, MeansState, "payment", true, true},
	{EventPaymentFailed, MeansState, "payment", true, false},
	{EventRefundProcessed, MeansRefund, "refund", true, false},
	{EventRefundFailed, MeansRefund, "refund", true, false},
	{EventRefundCreated, MeansRefund, "refund", true, false}, // booked when already processed
	{EventDisputeCreated, MeansDispute, "dispute", true, false},
	{EventDisputeWon, MeansDispute, "dispute", true, false},
	{EventDisputeLost, MeansDispute, "dispute", true, false},
	{EventDisputeClosed, MeansDispute, "dispute", true, false},
	{EventPaymentLinkCancelled, MeansNothing, "payment", false, false},
	{EventPaymentLinkExpired, MeansNothing, "payment", false, false},
	{EventRefundSpeedChanged, MeansNothing, "refund", false, false},
	{EventDisputeUnderReview, MeansDispute, "dispute", false, false},
	{EventDisputeActionRequired, MeansDispute, "dispute", false, false},
	{EventSettlementProcessed, MeansSettlement, "settlement", false, false},
	{EventPaymentDowntimeStarted, MeansNothing, "payment", false, false},
}

var catalogueByName = func() map[string]EventInfo {
	m := make(map[string]EventInfo, len(catalogue))
	for _, e := range catalogue {
		m[e.Name] = e
	}
	return m
}()

// Catalogue returns a copy of the event catalogue, offered names first.
func Catalogue() []EventInfo { return slices.Clone(catalogue) }

// LookupEvent returns the catalogue row of name. A name outside the catalogue gets the row its
// family implies (ok false): payment.dispute.* means a dispute keyed by the dispute id,
// refund.* and settlement.* mean nothing and are keyed by their entity, anything else means
// nothing and is keyed by the payment id.
func LookupEvent(name string) (info EventInfo, ok bool) {
	if e, ok := catalogueByName[name]; ok {
		return e, true
	}
	info = EventInfo{Name: name, KeyEntity: "payment"}
	switch {
	case strings.HasPrefix(name, disputePrefix):
		info.Meaning, info.KeyEntity = MeansDispute, "dispute"
	case strings.HasPrefix(name, refundPrefix):
		info.KeyEntity = "refund"
	case strings.HasPrefix(name, settlementPrefix):
		info.KeyEntity = "settlement"
	}
	return info, false
}

// OfferedEvents are the names the console's Events filter offers, in catalogue order.
func OfferedEvents() []string {
	var out []string
	for _, e := range catalogue {
		if e.Offered {
			out = append(out, e.Name)
		}
	}
	return out
}
