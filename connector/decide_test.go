package connector_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/wire"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// Decide, table-driven: a payment (or refund) and the ERPNext facts (an in-memory fake, no
// HTTP) and the connector's own rows → the plan, its reason and its document.

type decideCase struct {
	name   string
	cfg    func(*connector.Config)
	facts  func(f *fakeERP, db connector.Store)
	body   []byte
	action string
	reason string                                 // contained in the plan's reason
	check  func(t *testing.T, pl *connector.Plan) // more about the plan
	err    string                                 // Decide fails with this (a failure that is retried)
}

func TestDecide(t *testing.T) {
	pay := func(id string, amount int64, notes map[string]any, over map[string]any) []byte {
		o := map[string]any{"notes": notes}
		for k, v := range over {
			o[k] = v
		}
		return envelope(t, "payment.captured", "payment", payment(id, amount, o))
	}
	inv := func(name string) map[string]any { return map[string]any{"invoice": name} }
	transport := &frappe.TransportError{Method: "GET", Path: "/api/resource/Payment Entry", Err: errors.New("connection reset by peer")}
	cases := []decideCase{
		{name: "NotCaptured", body: pay("pay_T3stDec0000001", 100, nil, map[string]any{"status": "authorized", "captured": false}),
			action: connector.ExplainPark, reason: "payment not captured: payment pay_T3stDec0000001 is authorized, not captured"},
		{name: "NoPaymentEntity", body: envelope(t, "payment.captured"), action: connector.ExplainPark, reason: "payment.captured carries no payment entity"},
		{name: "FoundByReference", facts: func(f *fakeERP, _ connector.Store) { f.entry("ACC-PAY-1", "pay_T3stDec0000002", 1, "10.00") },
			body: pay("pay_T3stDec0000002", 1000, inv("SI-1"), nil), action: connector.ExplainReuse, reason: "found in ERPNext by reference_no",
			check: func(t *testing.T, pl *connector.Plan) { wantExisting(t, pl, "ACC-PAY-1") }},
		{name: "ReferenceOfAnotherCaseIsNotOurs", facts: func(f *fakeERP, _ connector.Store) {
			f.invoice("SI-1", "10.00")
			f.entry("ACC-PAY-1", "PAY_T3STDEC0000003", 1, "10.00")
		}, body: pay("pay_T3stDec0000003", 1000, inv("SI-1"), nil), action: connector.ExplainCreate},
		{name: "ModeOfPaymentWithoutAccount", facts: func(f *fakeERP, _ connector.Store) {
			f.add("Mode of Payment", "Razorpay", map[string]any{"accounts": []any{}})
		}, body: pay("pay_T3stDec0000004", 1000, inv("SI-1"), nil), action: connector.ExplainPark, reason: `configuration: Mode of Payment "Razorpay" has no account for company "Example Company"`},
		{name: "NoInvoiceNamed", body: pay("pay_T3stDec0000005", 1000, nil, nil), action: connector.ExplainPark,
			reason: "no invoice matched: payment pay_T3stDec0000005 names no invoice"},
		{name: "PaymentRequestOfAQuotation", facts: func(f *fakeERP, _ connector.Store) {
			f.add("Payment Request", "PR-1", map[string]any{"reference_doctype": "Quotation", "reference_name": "QTN-1"})
		}, body: pay("pay_T3stDec0000006", 1000, map[string]any{"payment_request": "PR-1"}, nil), action: connector.ExplainPark,
			reason: "Payment Request PR-1 is for Quotation QTN-1, not a Sales Invoice"},
		{name: "InvoiceSettled", facts: func(f *fakeERP, _ connector.Store) { f.invoice("SI-1", "0.00") },
			body: pay("pay_T3stDec0000007", 1000, inv("SI-1"), nil), action: connector.ExplainPark, reason: "invoice already settled: Sales Invoice SI-1 has outstanding INR 0.00"},
		{name: "Create", facts: func(f *fakeERP, _ connector.Store) { f.invoice("SI-1", "1000.00") },
			body: pay("pay_T3stDec0000008", 40000, inv("SI-1"), map[string]any{"method": "card"}), action: connector.ExplainCreate,
			check: func(t *testing.T, pl *connector.Plan) {
				refs := rowsOf(pl.Document["references"])
				if pl.Doctype != frappe.DoctypePaymentEntry || len(refs) != 1 || fmt.Sprint(refs[0]["allocated_amount"]) != "400.00" ||
					pl.Document["paid_amount"] != json.Number("400.00") || pl.Document["reference_no"] != "pay_T3stDec0000008" ||
					pl.Document["paid_to"] != "Razorpay Clearing - EC" || pl.Document["posting_date"] != "2026-01-15" || pl.Document["docstatus"] != 1 {
					t.Errorf("document %v", pl.Document)
				}
				if *pl.Ledger != (connector.Ledger{Currency: "INR", Paid: 40000, Allocated: 40000, ReceivedCurrency: "INR", Received: 40000}) {
					t.Errorf("ledger %+v", *pl.Ledger)
				}
				if pl.Booking.Invoice != "SI-1" || pl.Booking.AmountMinor != 40000 || pl.Booking.Kind != connector.KindReceipt {
					t.Errorf("booking %+v", pl.Booking)
				}
			}},
		{name: "ERPNextProposesAPayEntry", facts: func(f *fakeERP, _ connector.Store) {
			f.invoice("SI-1", "1000.00")
			f.docs["Sales Invoice"]["SI-1"]["is_return"] = 1
		}, body: pay("pay_T3stDec0000009", 1000, inv("SI-1"), nil), action: connector.ExplainPark, reason: "invoice not payable: Sales Invoice SI-1 is a return"},
		{name: "DraftMatchesAndIsSubmitted", facts: func(f *fakeERP, _ connector.Store) {
			f.invoice("SI-1", "1000.00")
			f.entry("ACC-PAY-9", "pay_T3stDec0000010", 0, "10.00", map[string]any{"reference_doctype": "Sales Invoice", "reference_name": "SI-1", "allocated_amount": "10.00"})
		}, body: pay("pay_T3stDec0000010", 1000, inv("SI-1"), nil), action: connector.ExplainSubmitDraft,
			check: func(t *testing.T, pl *connector.Plan) { wantExisting(t, pl, "ACC-PAY-9") }},
		{name: "DraftDiffers", facts: func(f *fakeERP, _ connector.Store) {
			f.invoice("SI-1", "1000.00")
			f.entry("ACC-PAY-9", "pay_T3stDec0000011", 0, "99.00")
		}, body: pay("pay_T3stDec0000011", 1000, inv("SI-1"), nil), action: connector.ExplainPark,
			reason: "draft differs: draft Payment Entry ACC-PAY-9 has reference_no pay_T3stDec0000011 but differs from the payment: paid_amount 99.00, expected 10.00"},
		{name: "InvoiceReadRefusedParks", facts: func(f *fakeERP, _ connector.Store) {
			f.invoice("SI-1", "1000.00")
			f.fail["list Sales Invoice"] = &frappe.Error{Status: 417, ExcType: "ValidationError", Messages: []string{"Invalid naming series"}}
		}, body: pay("pay_T3stDec0000012", 1000, inv("SI-1"), nil), action: connector.ExplainPark,
			reason: "resolve Sales Invoice: ERPNext 417 ValidationError: Invalid naming series"},
		{name: "InvoiceForbiddenIsAConfigurationFault", facts: func(f *fakeERP, _ connector.Store) {
			f.fail["list Sales Invoice"] = &frappe.Error{Status: 403, ExcType: "PermissionError", Messages: []string{"No permission for Sales Invoice"}}
		}, body: pay("pay_T3stDec0000021", 1000, inv("SI-1"), nil), err: "resolve Sales Invoice: frappe:  : 403 PermissionError"},
		{name: "LookupUnreachableFails", facts: func(f *fakeERP, _ connector.Store) { f.fail["list Payment Entry"] = transport },
			body: pay("pay_T3stDec0000013", 1000, inv("SI-1"), nil), err: "look up Payment Entry by reference_no pay_T3stDec0000013"},
		{name: "BookedAlready", facts: func(f *fakeERP, db connector.Store) {
			f.entry("ACC-PAY-7", "pay_T3stDec0000014", 1, "10.00")
			book(t, db, "pay_T3stDec0000014", "ACC-PAY-7")
		}, body: pay("pay_T3stDec0000014", 1000, inv("SI-1"), nil), action: connector.ExplainDuplicate, reason: "pay_T3stDec0000014 already booked as Payment Entry ACC-PAY-7",
			check: func(t *testing.T, pl *connector.Plan) { wantExisting(t, pl, "ACC-PAY-7") }},
		{name: "BookedEntryDeleted", facts: func(f *fakeERP, db connector.Store) { book(t, db, "pay_T3stDec0000015", "ACC-PAY-8") },
			body: pay("pay_T3stDec0000015", 1000, inv("SI-1"), nil), action: connector.ExplainPark, reason: "Payment Entry ACC-PAY-8 booked for pay_T3stDec0000015 was deleted in ERPNext"},
		{name: "PaymentRequestGrace", facts: func(f *fakeERP, _ connector.Store) {
			f.invoice("SI-1", "1000.00")
			f.add("Payment Request", "PR-1", map[string]any{"reference_doctype": "Sales Invoice", "reference_name": "SI-1"})
		}, body: pay("pay_T3stDec0000016", 1000, map[string]any{"payment_request": "PR-1"}, map[string]any{"created_at": t0.Unix() - 60}),
			action: connector.ExplainWait, reason: "for ERPNext's checkout to book Payment Request PR-1",
			check: func(t *testing.T, pl *connector.Plan) {
				if !pl.WaitUntil.Equal(t0.Add(9 * time.Minute)) {
					t.Errorf("wait until %v, want 10 min after the payment", pl.WaitUntil)
				}
			}},
		{name: "PaymentRequestWithTwoCheckoutEntries", facts: func(f *fakeERP, _ connector.Store) {
			f.invoice("SI-1", "1000.00")
			f.add("Payment Request", "PR-1", map[string]any{"reference_doctype": "Sales Invoice", "reference_name": "SI-1"})
			f.entry("ACC-PAY-1", "PR-1", 1, "10.00")
			f.entry("ACC-PAY-2", "XYZ", 1, "10.00", map[string]any{"reference_doctype": "Sales Invoice", "reference_name": "SI-1", "payment_request": "PR-1"})
		}, body: pay("pay_T3stDec0000017", 1000, map[string]any{"payment_request": "PR-1"}, nil), action: connector.ExplainPark,
			reason: "payment request: Payment Request PR-1 has 2 entries"},
		{name: "ForeignWithoutBaseAmount", facts: func(f *fakeERP, _ connector.Store) {
			f.invoice("SI-1", "25.00")
			f.docs["Sales Invoice"]["SI-1"]["party_account_currency"] = "USD"
		}, body: pay("pay_T3stDec0000018", 2500, inv("SI-1"), map[string]any{"currency": "USD", "base_amount": nil}), action: connector.ExplainPark,
			reason: "no exchange rate: payment pay_T3stDec0000018 in USD has no base_amount in INR"},
		{name: "AdvanceWithoutInvoice", cfg: func(c *connector.Config) {
			c.Mapping.WithoutInvoice, c.Mapping.FallbackCustomer = "advance", "Test Customer"
		},
			facts: func(f *fakeERP, _ connector.Store) {
				f.add("Customer", "Test Customer", map[string]any{"accounts": []any{}})
			},
			body: pay("pay_T3stDec0000019", 12345, nil, nil), action: connector.ExplainCreate,
			check: func(t *testing.T, pl *connector.Plan) {
				if pl.Document["party"] != "Test Customer" || len(rowsOf(pl.Document["references"])) != 0 || pl.Document["paid_amount"] != json.Number("123.45") ||
					pl.Note != "created an advance for Test Customer" || pl.Ledger.Unallocated != 12345 {
					t.Errorf("advance %v note %q ledger %+v", pl.Document, pl.Note, pl.Ledger)
				}
			}},
		{name: "CheckoutFoundThroughItsIntegrationRequest", cfg: func(c *connector.Config) { c.Reconcile.IntegrationRequests = true },
			facts: func(f *fakeERP, _ connector.Store) {
				f.invoice("SI-1", "1000.00")
				f.add("Payment Request", "PR-1", map[string]any{"reference_doctype": "Sales Invoice", "reference_name": "SI-1"})
				f.add("Integration Request", "ir1", map[string]any{"integration_request_service": "Razorpay", "status": "Completed",
					"data": `{"razorpay_payment_id": "pay_T3stDec0000020", "reference_doctype": "Payment Request", "reference_docname": "PR-1"}`})
			}, body: pay("pay_T3stDec0000020", 1000, nil, nil), action: connector.ExplainCreate,
			check: func(t *testing.T, pl *connector.Plan) {
				if refs := rowsOf(pl.Document["references"]); len(refs) != 1 || refs[0]["payment_request"] != "PR-1" {
					t.Errorf("references %v: want SI-1 linked to PR-1", refs)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runDecide(t, tc) })
	}
}

func TestDecideRefunds(t *testing.T) {
	refund := func(event, status string) []byte {
		return refundBody(t, event, "rfnd_T3stDec000001", "pay_T3stDecRf00001", 30000, status)
	}
	receipt := func(f *fakeERP, db connector.Store, docstatus int) {
		f.invoice("SI-1", "0.00")
		f.entry("ACC-PAY-1", "pay_T3stDecRf00001", docstatus, "1180.00", map[string]any{"reference_doctype": "Sales Invoice", "reference_name": "SI-1", "allocated_amount": "1180.00"})
		book(t, db, "pay_T3stDecRf00001", "ACC-PAY-1")
	}
	creditNote := func(f *fakeERP) {
		f.add("Sales Invoice", "SI-1-RET", map[string]any{"customer": "Test Customer", "company": "Example Company", "currency": "INR",
			"party_account_currency": "INR", "debit_to": "Debtors - EC", "docstatus": 1, "is_return": 1, "return_against": "SI-1",
			"outstanding_amount": json.Number("-200.00")})
	}
	for _, tc := range []decideCase{
		{name: "AgainstTheCreditNote", facts: func(f *fakeERP, db connector.Store) { receipt(f, db, 1); creditNote(f) },
			body: refund("refund.processed", "processed"), action: connector.ExplainCreate,
			check: func(t *testing.T, pl *connector.Plan) {
				refs := rowsOf(pl.Document["references"])
				if pl.Document["payment_type"] != "Pay" || len(refs) != 1 || refs[0]["reference_name"] != "SI-1-RET" || fmt.Sprint(refs[0]["allocated_amount"]) != "-200.00" ||
					pl.Document["paid_amount"] != json.Number("300.00") || pl.Document["paid_from"] != "Razorpay Clearing - EC" {
					t.Errorf("refund document %v", pl.Document)
				}
				if *pl.Ledger != (connector.Ledger{Currency: "INR", Paid: 30000, Allocated: -20000, Unallocated: 10000, ReceivedCurrency: "INR", Received: 30000}) {
					t.Errorf("ledger %+v", *pl.Ledger)
				}
			}},
		{name: "ReceiptNotSubmitted", facts: func(f *fakeERP, db connector.Store) { receipt(f, db, 2) },
			body: refund("refund.processed", "processed"), action: connector.ExplainPark, reason: "receipt not booked: receipt ACC-PAY-1 of payment pay_T3stDecRf00001 is not submitted in ERPNext"},
		{name: "WaitsForItsReceipt", body: refund("refund.processed", "processed"), action: connector.ExplainWait,
			reason: "receipt not booked: refund waits for the receipt of payment pay_T3stDecRf00001"},
		{name: "DraftWithItsReference", facts: func(f *fakeERP, _ connector.Store) { f.entry("ACC-PAY-5", "rfnd_T3stDec000001", 0, "300.00") },
			body: refund("refund.processed", "processed"), action: connector.ExplainPark, reason: "draft differs: draft Payment Entry ACC-PAY-5 has reference_no rfnd_T3stDec000001"},
		{name: "NotProcessedYet", body: refund("refund.created", "pending"), action: connector.ExplainSkip,
			reason: "refund rfnd_T3stDec000001 is pending; it is booked when Razorpay reports it processed"},
		{name: "FailedCancelsItsEntry", facts: func(f *fakeERP, db connector.Store) {
			f.entry("ACC-PAY-6", "rfnd_T3stDec000001", 1, "300.00")
			book(t, db, "rfnd_T3stDec000001", "ACC-PAY-6")
		}, body: refund("refund.failed", "failed"), action: connector.ExplainCancel, reason: "its Payment Entry ACC-PAY-6 is cancelled and it is never booked",
			check: func(t *testing.T, pl *connector.Plan) { wantExisting(t, pl, "ACC-PAY-6") }},
		{name: "FailedWithNothingBooked", body: refund("refund.failed", "failed"), action: connector.ExplainVoid,
			reason: "refund rfnd_T3stDec000001 failed at Razorpay; nothing was booked and it never will be"},
		{name: "NoRefundEntity", body: envelope(t, "refund.processed"), action: connector.ExplainPark, reason: "refund.processed carries no refund entity"},
	} {
		t.Run(tc.name, func(t *testing.T) { runDecide(t, tc) })
	}
}

func TestDecideOtherEvents(t *testing.T) {
	for _, tc := range []decideCase{
		{name: "DisputeWithoutEntity", body: envelope(t, "payment.dispute.lost"), action: connector.ExplainPark, reason: "dispute: payment.dispute.lost carries no dispute entity"},
		{name: "Authorized", body: envelope(t, "payment.authorized", "payment", payment("pay_T3stDecSt00001", 100, map[string]any{"status": "authorized"})),
			action: connector.ExplainSkip, reason: "recorded: payment pay_T3stDecSt00001 was authorized in this snapshot"},
		{name: "FailedWithoutPayment", body: envelope(t, "payment.failed"), action: connector.ExplainSkip, reason: "no payment in payment.failed"},
		{name: "Unknown", body: envelope(t, "qr_code.credited"), action: connector.ExplainSkip, reason: "event qr_code.credited is not booked by this version"},
	} {
		t.Run(tc.name, func(t *testing.T) { runDecide(t, tc) })
	}
}

func runDecide(t *testing.T, tc decideCase) {
	t.Helper()
	f := newFakeERP()
	db := sqliteStore(t)
	if tc.facts != nil {
		tc.facts(f, db)
	}
	cfg := intakeConfig()
	if tc.cfg != nil {
		tc.cfg(&cfg)
	}
	c, err := wire.New(wire.Options{Config: cfg, Store: db, ERP: f, Log: zerolog.Nop(), Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := razorpay.ParseEvent(tc.body)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := c.Decide(context.Background(), ev)
	if len(f.writes) > 0 {
		t.Errorf("Decide wrote: %v", f.writes)
	}
	if tc.err != "" {
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Fatalf("Decide = %+v, %v; want the failure %q", pl, err, tc.err)
		}
		return
	}
	if err != nil {
		t.Fatalf("Decide: %v", err)
	}
	if pl.Action != tc.action || !strings.Contains(pl.Reason, tc.reason) {
		t.Fatalf("plan %s %q, want %s %q", pl.Action, pl.Reason, tc.action, tc.reason)
	}
	if pl.Key != ev.BusinessKey() || pl.Event != ev.Event {
		t.Errorf("plan of %s %s, want %s %s", pl.Event, pl.Key, ev.Event, ev.BusinessKey())
	}
	if tc.check != nil {
		tc.check(t, pl)
	}
}

func wantExisting(t *testing.T, pl *connector.Plan, name string) {
	t.Helper()
	if pl.Existing != name {
		t.Errorf("existing %q, want %s", pl.Existing, name)
	}
}

// book records key as booked by the Payment Entry name.
func book(t *testing.T, db connector.Store, key, name string) {
	t.Helper()
	ctx := context.Background()
	if _, _, err := db.ClaimBooking(ctx, connector.Booking{BusinessKey: key, Kind: connector.KindReceipt, Owner: "test", FenceUntil: t0}, t0); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishBooking(ctx, connector.Booking{BusinessKey: key, Doctype: frappe.DoctypePaymentEntry, Name: name}, t0); err != nil {
		t.Fatal(err)
	}
}
