package mapping_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/mapping"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// goldenCase is one testdata/<case>.json: a webhook body, rule overrides and the ERPNext facts
// the connector would have looked up.
type goldenCase struct {
	Rules struct {
		Excess                   string            `json:"excess"`
		Fees                     *mapping.FeeRules `json:"fees"`
		RefundsWithoutCreditNote string            `json:"refunds_without_credit_note"`
		InvoiceFrom              []string          `json:"invoice_from"`
		DescriptionPattern       string            `json:"description_pattern"`
	} `json:"rules"`
	AdvanceCustomer string                `json:"advance_customer"`
	Event           json.RawMessage       `json:"event"`
	Invoice         *mapping.Invoice      `json:"invoice"`
	PaymentRequest  string                `json:"payment_request"`
	Receipt         *mapping.ReceiptFacts `json:"receipt"`
	CreditNote      *mapping.Invoice      `json:"credit_note"`
}

type goldenOut struct {
	Candidates []mapping.Candidate `json:"candidates,omitempty"`
	Receipt    *mapping.Receipt    `json:"receipt,omitempty"`
	Refund     *mapping.Refund     `json:"refund,omitempty"`
	Park       *mapping.Park       `json:"park,omitempty"`
}

func goldenRules(t *testing.T, c goldenCase) mapping.Rules {
	r := rules(t)
	r.Fees = mapping.FeeRules{Mode: "none"}
	r.RefundsWithoutCreditNote = "park"
	if c.Rules.Excess != "" {
		r.Excess = c.Rules.Excess
	}
	if c.Rules.Fees != nil {
		r.Fees = *c.Rules.Fees
	}
	if c.Rules.RefundsWithoutCreditNote != "" {
		r.RefundsWithoutCreditNote = c.Rules.RefundsWithoutCreditNote
	}
	if c.Rules.InvoiceFrom != nil {
		r.InvoiceFrom = c.Rules.InvoiceFrom
	}
	if c.Rules.DescriptionPattern != "" {
		r.DescriptionPattern = regexp.MustCompile(c.Rules.DescriptionPattern)
	}
	return r
}

// TestGolden runs every testdata case through the planners and compares with its golden
// file; `go test ./mapping -update` rewrites them (review the diff).
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c goldenCase
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&c); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			ev, err := razorpay.ParseEvent(c.Event)
			if err != nil {
				t.Fatalf("event: %v", err)
			}
			r := goldenRules(t, c)
			var out goldenOut
			var perr error
			if ev.Refund != nil {
				var plan mapping.Refund
				plan, perr = mapping.PlanRefund(r, ev.Refund, *c.Receipt, c.CreditNote)
				if perr == nil {
					out.Refund = &plan
				}
			} else {
				out.Candidates = mapping.InvoiceCandidates(r, ev.Payment, ev.Order, ev.PaymentLink)
				if c.AdvanceCustomer != "" {
					var plan mapping.Receipt
					plan, perr = mapping.PlanAdvance(r, ev.Payment, ev.Order, c.AdvanceCustomer, "Example Company")
					if perr == nil {
						out.Receipt = &plan
					}
				} else if c.Invoice != nil {
					var plan mapping.Receipt
					plan, perr = mapping.PlanReceipt(r, ev.Payment, ev.Order, *c.Invoice, c.PaymentRequest)
					if perr == nil {
						out.Receipt = &plan
					}
				}
			}
			if perr != nil {
				var p *mapping.Park
				if !errors.As(perr, &p) {
					t.Fatalf("planner error %v is not a *mapping.Park", perr)
				}
				out.Park = p
			}
			got, _ := json.MarshalIndent(out, "", "  ")
			got = append(got, '\n')
			golden := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./mapping -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s:\n%s", name, golden, got)
			}
		})
	}
	if n < 15 {
		t.Fatalf("only %d golden cases", n)
	}
}
