package connector_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// outcomeLines returns the "event outcome" log lines of event, decoded.
func outcomeLines(t *testing.T, logs *syncBuffer, event string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if l["message"] == "event outcome" && l["event"] == event {
			out = append(out, l)
		}
	}
	return out
}

// A settlement's log line names the settlement as settlement_id and its Journal Entry as
// journal_entry, never payment_id / payment_entry; a payment's line keeps payment_id and
// payment_entry.
func TestSettlementLogLinesNameTheSettlementAndItsJournalEntry(t *testing.T) {
	logs := &syncBuffer{}
	r := newSetlRig(t, withLog(logs))
	pay := r.pay(0, 100000, false)
	r.flush()
	st := r.settle(razorpaysim.SettleOptions{})
	je := fmt.Sprint(r.journal(st.UTR)["name"])
	receipt := fmt.Sprint(r.one(pay)["name"])

	setl := outcomeLines(t, logs, "settlement.processed")
	if len(setl) != 1 {
		t.Fatalf("%d settlement outcome lines, want 1: %v", len(setl), setl)
	}
	l := setl[0]
	if l["settlement_id"] != st.ID || l["journal_entry"] != je || l["status"] != "done" {
		t.Errorf("settlement line %v: want settlement_id %s, journal_entry %s, status done", l, st.ID, je)
	}
	if _, ok := l["payment_id"]; ok {
		t.Errorf("settlement line has payment_id: %v", l)
	}
	if _, ok := l["payment_entry"]; ok {
		t.Errorf("settlement line has payment_entry: %v", l)
	}
	var captured []map[string]any
	for _, l := range outcomeLines(t, logs, "payment.captured") {
		if l["payment_entry"] == receipt {
			captured = append(captured, l)
		}
	}
	if len(captured) != 1 || captured[0]["payment_id"] != pay {
		t.Errorf("payment lines %v: want one with payment_id %s and payment_entry %s", captured, pay, receipt)
	}
	if _, ok := captured[0]["settlement_id"]; ok {
		t.Errorf("payment line has settlement_id: %v", captured[0])
	}
}
