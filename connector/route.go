package connector

import (
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Route is what an event means for the books (DESIGN.md §4 step 4). RouteOf, built from the
// event catalogue in package razorpay, is the one routing table: the worker, Explain, the
// metrics and reconcile all read it.
type Route int

// The routes.
const (
	// RouteSkip: anything else is skipped ("not booked by this version").
	RouteSkip Route = iota
	// RouteReceipt: a customer receipt for the payment id.
	RouteReceipt
	// RouteRefund: a refund for the refund id; refund.failed is final and reverses it.
	RouteRefund
	// RouteDispute: recorded, counted and parked for a person.
	RouteDispute
	// RouteState: the payment's state is recorded only; a later capture books it.
	RouteState
	// RouteSettlement: a processed settlement's Journal Entry from the clearing account to the
	// bank, for the settlement id (connector/settlement).
	RouteSettlement
)

// EventRefundFailed shares its business key (the refund id) with the refund's booking but
// means the opposite: it is final and reverses that booking (DESIGN.md §4 step 4).
const EventRefundFailed = razorpay.EventRefundFailed

// EventSettlementProcessed is the settlement event the connector posts (spec/razorpay.md §2.2);
// reconcile's settlement sweep queues its synthetic rows under this name too.
const EventSettlementProcessed = razorpay.EventSettlementProcessed

// routeOfMeaning turns the event catalogue's meanings (razorpay.LookupEvent) into routes.
var routeOfMeaning = map[razorpay.Meaning]Route{
	razorpay.MeansNothing:    RouteSkip,
	razorpay.MeansReceipt:    RouteReceipt,
	razorpay.MeansRefund:     RouteRefund,
	razorpay.MeansDispute:    RouteDispute,
	razorpay.MeansState:      RouteState,
	razorpay.MeansSettlement: RouteSettlement,
}

// RouteOf returns the route of an event name ("payment.captured", …), from the event catalogue:
// a name outside it is skipped, except payment.dispute.*, which is a dispute.
func RouteOf(event string) Route {
	info, _ := razorpay.LookupEvent(event)
	return routeOfMeaning[info.Meaning]
}

// Kind is the booking kind the route leads to: KindReceipt, KindRefund, or "" when it books
// nothing.
func (r Route) Kind() string {
	switch r {
	case RouteReceipt:
		return KindReceipt
	case RouteRefund:
		return KindRefund
	case RouteSettlement:
		return KindSettlement
	}
	return ""
}

// LogKeyField is the log field that names a business key of kind: "settlement_id" for a
// settlement's, "payment_id" for the rest (a receipt's payment id, and a refund's id too, as
// payment lines always had it).
func LogKeyField(kind string) string {
	if kind == KindSettlement {
		return "settlement_id"
	}
	return "payment_id"
}

// LogResultField is the log field that names a result of doctype: "journal_entry" for a
// settlement's Journal Entry, "payment_entry" for the rest.
func LogResultField(doctype string) string {
	if doctype == frappe.DoctypeJournalEntry {
		return "journal_entry"
	}
	return "payment_entry"
}
