package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// mapping.without_invoice "advance": a payment naming no invoice becomes an unallocated receipt
// for the customer found through mapping.customer_from, else the fallback customer, else parks.
func TestPaymentWithoutInvoiceAsAdvance(t *testing.T) {
	t.Parallel()
	advance := func(e *env, fallback string) connector.Config {
		cfg := e.config()
		cfg.Mapping.WithoutInvoice = "advance"
		cfg.Mapping.FallbackCustomer = fallback
		return cfg
	}
	t.Run("CustomerFromNotes", func(t *testing.T) {
		e := newEnv(t, "sqlite")
		d := e.start(feeConfig(advance(e, "")))
		e.deliver(d, "T3stEvtAdv0001", envelope(t, "payment.captured", "payment",
			capture("pay_T3stAdvance001", 118000, map[string]any{"fee": 2360, "tax": 360, "notes": map[string]any{"customer": "Test Customer"}})))
		e.waitIdle(d)
		pe := e.one("pay_T3stAdvance001")
		if pe["party"] != "Test Customer" || pe["payment_type"] != "Receive" || len(rows(pe, "references")) != 0 {
			t.Errorf("entry party %v type %v refs %v", pe["party"], pe["payment_type"], rows(pe, "references"))
		}
		if pe["paid_from"] != erpnextsim.DefaultReceivable {
			t.Errorf("paid_from %v, want the customer's receivable filled by ERPNext", pe["paid_from"])
		}
		wantAmount(t, "paid_amount", pe["paid_amount"], 115640)
		wantAmount(t, "unallocated_amount", pe["unallocated_amount"], 118000)
		wantAmount(t, "difference_amount", pe["difference_amount"], 0)
		if out := amountMinor(t, e.invoiceField("outstanding_amount")); out != 1200000 {
			t.Errorf("an unrelated invoice changed: outstanding %d", out)
		}
	})
	t.Run("FallbackCustomer", func(t *testing.T) {
		e := newEnv(t, "sqlite")
		d := e.start(advance(e, "Test Customer"))
		e.deliver(d, "T3stEvtAdv0002", envelope(t, "payment.captured", "payment", capture("pay_T3stAdvance002", 50000, nil)))
		e.waitIdle(d)
		if pe := e.one("pay_T3stAdvance002"); pe["party"] != "Test Customer" {
			t.Errorf("party %v", pe["party"])
		}
	})
	t.Run("NoCustomerParks", func(t *testing.T) {
		e := newEnv(t, "sqlite")
		d := e.start(advance(e, ""))
		e.deliver(d, "T3stEvtAdv0003", envelope(t, "payment.captured", "payment",
			capture("pay_T3stAdvance003", 50000, map[string]any{"notes": map[string]any{"customer": "Nobody Known"}})))
		e.waitIdle(d)
		ev := e.statusOf("pay_T3stAdvance003")
		if ev.Status != connector.StatusParked || !strings.HasPrefix(ev.LastError, "no invoice matched") || !strings.Contains(ev.LastError, "no customer found") {
			t.Fatalf("%s %q", ev.Status, ev.LastError)
		}
	})
	t.Run("CustomerFromContacts", func(t *testing.T) {
		e := newEnv(t, "sqlite")
		for _, c := range []string{"Email Customer", "Phone Customer", "Shared One", "Shared Two"} {
			if err := e.site.AddCustomer(c); err != nil {
				t.Fatal(err)
			}
		}
		contacts := []erpnextsim.ContactSpec{
			{FirstName: "Asha", Emails: []erpnextsim.ContactEmail{{Email: "asha@example.com", Primary: true}}, Customers: []string{"Email Customer"}},
			{FirstName: "Ravi", Phones: []erpnextsim.ContactPhone{{Phone: "+91 9876543210"}}, Customers: []string{"Phone Customer"}},
			{FirstName: "Family", Emails: []erpnextsim.ContactEmail{{Email: "family@example.com"}}, Customers: []string{"Shared One", "Shared Two"}},
		}
		for _, c := range contacts {
			if _, err := e.site.AddContact(c); err != nil {
				t.Fatal(err)
			}
		}
		d := e.start(advance(e, ""))
		cases := []struct{ id, email, phone, want string }{
			{"pay_T3stAdvMail001", "ASHA@example.com", "+919000000001", "Email Customer"},
			{"pay_T3stAdvPhon001", "", "+91 98765-43210", "Phone Customer"},
			{"pay_T3stAdvAmbg001", "family@example.com", "", ""},
		}
		for i, c := range cases {
			e.deliver(d, fmt.Sprintf("T3stEvtAdvC%03d", i), envelope(t, "payment.captured", "payment",
				capture(c.id, 50000, map[string]any{"email": c.email, "contact": c.phone})))
		}
		e.waitIdle(d)
		for _, c := range cases {
			if c.want == "" {
				ev := e.statusOf(c.id)
				if ev.Status != connector.StatusParked || !strings.HasPrefix(ev.LastError, "ambiguous customer") || !strings.Contains(ev.LastError, "Shared One, Shared Two") {
					t.Errorf("%s: %s %q, want parked: ambiguous customer", c.id, ev.Status, ev.LastError)
				}
				continue
			}
			if pe := e.one(c.id); pe["party"] != c.want {
				t.Errorf("%s booked for %v, want %s", c.id, pe["party"], c.want)
			}
		}
	})
}

// An advance never lands on a receivable in another currency.
func TestAdvanceForAForeignCurrencyCustomerParks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	if err := e.site.AddCustomerSpec(erpnextsim.CustomerSpec{Name: "USD Customer", DefaultCurrency: "USD", ReceivableAccount: erpnextsim.ReceivableUSD}); err != nil {
		t.Fatal(err)
	}
	cfg := e.config()
	cfg.Mapping.WithoutInvoice = "advance"
	d := e.start(cfg)
	e.deliver(d, "T3stEvAdvUsd01", envelope(t, "payment.captured", "payment",
		capture("pay_T3stAdvUsd0001", 50000, map[string]any{"notes": map[string]any{"customer": "USD Customer"}})))
	e.waitIdle(d)
	ev := e.statusOf("pay_T3stAdvUsd0001")
	if ev.Status != connector.StatusParked || !strings.HasPrefix(ev.LastError, "currency not supported") || !strings.Contains(ev.LastError, erpnextsim.ReceivableUSD) {
		t.Fatalf("%s %q", ev.Status, ev.LastError)
	}
	if n := len(e.site.Docs("Payment Entry")); n != 0 {
		t.Errorf("%d entries", n)
	}
}

// explain predicts the advance serve books.
func TestExplainPredictsTheAdvance(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	path, envs := e.configFile("mapping: {company: \""+erpnextsim.DefaultCompany+"\", without_invoice: advance}\n", "")
	body := envelope(t, "payment.captured", "payment", capture("pay_T3stAdvExpl01", 50000, map[string]any{"notes": map[string]any{"customer": "Test Customer"}}))
	f := filepath.Join(t.TempDir(), "p.json")
	os.WriteFile(f, body, 0o600)
	code, out, errs := run(t, envs, "explain", "--config", path, "--payload", f, "--json")
	var x connector.Explanation
	if err := json.Unmarshal([]byte(out), &x); err != nil || code != exitOK {
		t.Fatalf("exit %d %q %q", code, out, errs)
	}
	if x.Action != connector.ExplainCreate || x.Entry["party"] != "Test Customer" || amountMinor(t, x.Entry["paid_amount"]) != 50000 {
		t.Errorf("explanation %+v", x)
	}
	if len(e.site.Docs("Payment Entry")) != 0 {
		t.Error("explain wrote")
	}
}
