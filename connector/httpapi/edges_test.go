package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// edgePayment is a signed payment.captured whose payment entity carries fields (e.g. an
// amount of some type) followed by the rest of a capture.
func edgePayment(fields string) []byte {
	return []byte(`{"entity":"event","account_id":"acc_T3stAcc0unt001","event":"payment.captured","contains":["payment"],` +
		`"payload":{"payment":{"entity":{"id":"pay_T3stEdge000001","entity":"payment",` + fields +
		`,"currency":"INR","status":"captured","created_at":1768453200}}},"created_at":1768453205}`)
}

// edgeCase is one request at the intake edge and what must come of it: the exact status, and
// whether a row was stored with which status and reason.
type edgeCase struct {
	name    string
	body    []byte
	eventID string // "" sends none
	sig     string // "" signs body with the current secret; "-" sends none
	status  int
	stored  connector.Status // "" = nothing stored
	reason  string           // part of the stored row's LastError
}

func edgeCases() []edgeCase {
	big := []byte(strings.Repeat(" ", 2<<20))
	return []edgeCase{
		{name: "EmptyBody", body: []byte{}, eventID: "T3stEdgeEmpty1", status: 200, stored: connector.StatusDead,
			reason: `webhook body does not parse: razorpay: parse event: event: unexpected end of JSON input (at byte 0: "")`},
		{name: "TwoMiBBody", body: big, eventID: "T3stEdgeBig001", status: 413},
		{name: "TruncatedJSON", body: edgePayment(`"amount":100`)[:80], eventID: "T3stEdgeTrunc1", status: 200, stored: connector.StatusDead,
			reason: "unexpected end of JSON input (at byte 79"},
		// Intake reads only the head (razorpay.PeekEvent); an amount that is not an integer is
		// the worker's ParseEvent's to refuse: stored pending here, made dead by the worker
		// (connector TestBodyTheHeadReadsButNotTheWorkerGoesDead).
		{name: "AmountAsString", body: edgePayment(`"amount":"100"`), eventID: "T3stEdgeAmtStr", status: 200, stored: connector.StatusPending},
		{name: "PayloadAsArray", body: []byte(`{"entity":"event","event":"payment.captured","payload":[1,2]}`), eventID: "T3stEdgeArray1",
			status: 200, stored: connector.StatusDead, reason: `payload: expected an object, got "[1,2]"`},
		{name: "DeepNestingOfArrays", body: []byte(strings.Repeat("[", 10000)), eventID: "T3stEdgeDeep01", status: 200,
			stored: connector.StatusDead, reason: "unexpected end of JSON input (at byte 9999"},
		{name: "DeepNestingOfObjects", body: []byte(`{"payload":` + strings.Repeat(`{"a":`, 10000)), eventID: "T3stEdgeDeep02",
			status: 200, stored: connector.StatusDead, reason: "exceeded max depth"},
		{name: "InvalidUTF8Body", body: []byte("\xff\xfe{}"), eventID: "T3stEdgeUtf801", status: 200, stored: connector.StatusDead,
			reason: `(at byte 0: "\xff\xfe{}")`},
		{name: "AmountOverInt64", body: edgePayment(`"amount":99999999999999999999`), eventID: "T3stEdgeHuge01", status: 200,
			stored: connector.StatusPending},
		// The head is read and checked: an entity id that is not a string is dead at intake.
		{name: "PaymentIDAsNumber", body: []byte(`{"entity":"event","event":"payment.captured","contains":["payment"],"payload":{"payment":{"entity":{"id":12345,"entity":"payment","amount":100,"currency":"INR"}}},"created_at":1768453205}`),
			eventID: "T3stEdgeIdNum1", status: 200, stored: connector.StatusDead, reason: "webhook body does not parse: razorpay: parse event: payment.id: not a string"},
		// A negative amount is a well-formed event: intake stores it; the worker decides.
		{name: "NegativeAmount", body: edgePayment(`"amount":-100`), eventID: "T3stEdgeNeg001", status: 200, stored: connector.StatusPending},
		{name: "EventIDWithByteFF", body: edgePayment(`"amount":100`), eventID: "T3stEdge\xffFF01", status: 400},
		{name: "EventIDTooLong", body: edgePayment(`"amount":100`), eventID: strings.Repeat("A", 65), status: 400},
		{name: "EventIDOneTooLong", body: edgePayment(`"amount":100`), eventID: "T3stEdgeLong015", status: 400},
		{name: "EventIDTooShort", body: edgePayment(`"amount":100`), eventID: "T3stEdge", status: 400},
		{name: "EventIDWithPrefix", body: edgePayment(`"amount":100`), eventID: "evt_T3stEdge0001", status: 400},
		{name: "EventIDWithPunctuation", body: edgePayment(`"amount":100`), eventID: "T3st-Edge.0001", status: 400},
		{name: "EventIDOfTheReconcileForm", body: edgePayment(`"amount":100`), eventID: "reconcile:pay_T3stEdge000001", status: 400},
		{name: "EventIDMissing", body: edgePayment(`"amount":100`), status: 400},
		{name: "SignatureMissing", body: edgePayment(`"amount":100`), eventID: "T3stEdgeNoSig1", sig: "-", status: 401},
		{name: "SignatureOfAnotherBody", body: edgePayment(`"amount":100`), eventID: "T3stEdgeBadSg1", sig: razorpay.Sign(secretNew, []byte("{}")), status: 401},
		{name: "Accepted", body: edgePayment(`"amount":100`), eventID: "T3stEdgeGood01", status: 200, stored: connector.StatusPending},
	}
}

// TestIntakeEdges: no client-side problem is answered 5xx or panics, on either store; each
// case gets its exact status, and a row is stored exactly when the answer is 200 (invalid
// UTF-8 is 200-and-dead, a bad event id is 400, never 503 on MariaDB).
func TestIntakeEdges(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			s := eng.open(t)
			h := newIntake(t, s)
			for _, tc := range edgeCases() {
				t.Run(tc.name, func(t *testing.T) {
					sig := tc.sig
					switch sig {
					case "":
						sig = razorpay.Sign(secretNew, tc.body)
					case "-":
						sig = ""
					}
					before := total(t, s)
					w := send(h, http.MethodPost, tc.eventID, sig, tc.body)
					if w.Code != tc.status {
						t.Fatalf("status %d %s; want %d", w.Code, w.Body, tc.status)
					}
					after := total(t, s)
					if tc.stored == "" {
						if after != before {
							t.Fatalf("%d rows stored; want none", after-before)
						}
						return
					}
					if after != before+1 {
						t.Fatalf("%d rows stored; want 1", after-before)
					}
					rows, err := s.FindEvents(context.Background(), tc.eventID)
					if err != nil || len(rows) != 1 {
						t.Fatalf("rows of %s: %d, %v", tc.eventID, len(rows), err)
					}
					r := rows[0]
					if r.Status != tc.stored || !strings.Contains(r.LastError, tc.reason) || !utf8.ValidString(r.LastError) {
						t.Errorf("stored %s %q; want %s with %q, valid UTF-8", r.Status, r.LastError, tc.stored, tc.reason)
					}
					if string(r.RawBody) != string(tc.body) {
						t.Errorf("raw body %q; want the bytes received", r.RawBody)
					}
				})
			}
		})
	}
}
