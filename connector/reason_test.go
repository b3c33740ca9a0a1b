package connector_test

import (
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// A reason quotes ERPNext only when it holds ERPNext's own answer (status, exception, message).
func TestQuotesERPNext(t *testing.T) {
	for reason, want := range map[string]bool{
		"insert Payment Entry for pay_X: ERPNext 417 ValidationError: Posting Date is in a closed period":        true,
		"ERPNext 409 DuplicateEntryError: Duplicate entry":                                                       true,
		"paused: read Sales Invoice ACC-SINV-1: ERPNext 401 AuthenticationError: Invalid key":                    true,
		"no invoice matched: notes.invoice ACC-SINV-2026-00003 is neither a Sales Invoice nor a Payment Request": false,
		"invoice already settled: Sales Invoice ACC-SINV-1 has outstanding 0 in ERPNext":                         false,
		"replayed by Priya (console) (was parked: no invoice matched: …)":                                        false,
		"": false,
	} {
		if got := connector.QuotesERPNext(reason); got != want {
			t.Errorf("QuotesERPNext(%q) = %v, want %v", reason, got, want)
		}
	}
}
