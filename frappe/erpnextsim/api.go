package erpnextsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// InvoiceSpec describes a Sales Invoice to create with AddSalesInvoice or in
// a seed file. JSON keys: customer, items, currency, conversion_rate,
// due_date, posting_date, submit, cancel, name.
type InvoiceSpec struct {
	Customer       string `json:"customer"`
	Items          []Item `json:"items"`
	Currency       string `json:"currency,omitempty"`        // default the company currency (INR)
	ConversionRate string `json:"conversion_rate,omitempty"` // decimal text; required when Currency is not INR
	DueDate        string `json:"due_date,omitempty"`        // "YYYY-MM-DD"; default the posting date
	PostingDate    string `json:"posting_date,omitempty"`    // "YYYY-MM-DD"; default today
	Submit         bool   `json:"submit,omitempty"`          // docstatus 1: outstanding = rounded grand total
	Cancel         bool   `json:"cancel,omitempty"`          // submit, then cancel (docstatus 2)
	Name           string `json:"name,omitempty"`            // optional fixed name, e.g. "ACC-SINV-2026-00017"; default the series
	// IsReturn makes a credit note (is_return 1, recordings 40-*…43-*). Give Items with
	// positive Qty and Rate, as for a normal invoice: the quantities are negated, so totals and
	// outstanding come out negative (ERPNext refuses a return without a negative quantity).
	// Negative quantities are kept as given.
	IsReturn bool `json:"is_return,omitempty"`
	// ReturnAgainst is the original invoice of a credit note (must be submitted, same customer).
	ReturnAgainst string `json:"return_against,omitempty"`
	// UpdateOriginal sets update_outstanding_for_self 0: the credit note reduces the original
	// invoice's outstanding instead of carrying its own (default: its own, as ERPNext 15.71).
	UpdateOriginal bool `json:"update_original,omitempty"`
	// PaymentTermsTemplate attaches a template made with AddPaymentTermsTemplate: the
	// invoice gets one payment_schedule row per term and its due date becomes the latest
	// term's (DueDate is then overridden), as ERPNext's set_payment_schedule does.
	PaymentTermsTemplate string `json:"payment_terms_template,omitempty"`
}

// Item is one invoice line: amount = Qty × Rate, rounded to 2 decimals.
type Item struct {
	ItemCode string `json:"item_code"`
	Qty      int64  `json:"qty"`
	Rate     string `json:"rate"` // decimal text, e.g. "12000.00"
}

// UnmarshalJSON accepts rate as a JSON string or number.
func (it *Item) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return err
	}
	it.ItemCode, it.Qty, it.Rate = str(m["item_code"]), int64(cint(m["qty"])), str(m["rate"])
	return nil
}

const admin = "Administrator"

// run executes a handler directly (no HTTP, no faults) as Administrator.
func (s *Site) run(h handler) (any, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	c := &call{users: s.users, user: admin, args: map[string]any{}, seen: map[string]dec{}, status: 200, direct: true}
	e, st := h(c)
	if e != nil {
		return nil, fmt.Errorf("erpnextsim: %s", stripTags(e.Error()))
	}
	return st(), nil
}

// AddCustomer creates Customer name (customer_type Company). It fails if the
// customer exists.
func (s *Site) AddCustomer(name string) error {
	s.db.mu.Lock()
	exists := s.db.get("Customer", name) != nil
	s.db.mu.Unlock()
	if exists {
		return fmt.Errorf("erpnextsim: customer %q already exists", name)
	}
	_, err := s.run(func(c *call) (*fErr, step) {
		return s.parties.insertCustomer(c, map[string]any{"customer_name": name})
	})
	return err
}

// AddSalesInvoice creates (and optionally submits or cancels) a Sales Invoice
// through the same validation as POST /api/resource/Sales Invoice and returns
// its name. The customer must exist.
func (s *Site) AddSalesInvoice(spec InvoiceSpec) (string, error) {
	body := map[string]any{"customer": spec.Customer}
	var items []any
	for _, it := range spec.Items {
		qty := it.Qty
		if spec.IsReturn && qty > 0 {
			qty = -qty
		}
		items = append(items, map[string]any{"item_code": it.ItemCode, "qty": json.Number(fmt.Sprint(qty)), "rate": it.Rate})
	}
	body["items"] = items
	if spec.IsReturn {
		body["is_return"] = json.Number("1")
		body["update_outstanding_for_self"] = json.Number(fmt.Sprint(b2i(!spec.UpdateOriginal)))
		if spec.ReturnAgainst != "" {
			body["return_against"] = spec.ReturnAgainst
		}
	}
	for k, v := range map[string]string{"currency": spec.Currency, "conversion_rate": spec.ConversionRate, "due_date": spec.DueDate,
		"posting_date": spec.PostingDate, "payment_terms_template": spec.PaymentTermsTemplate} {
		if v != "" {
			body[k] = v
		}
	}
	if spec.Submit || spec.Cancel {
		body["docstatus"] = json.Number("1")
	}
	if spec.Name != "" {
		s.db.mu.Lock()
		exists := s.db.get(siDT, spec.Name) != nil
		s.db.mu.Unlock()
		if exists {
			return "", fmt.Errorf("erpnextsim: Sales Invoice %q already exists", spec.Name)
		}
	}
	out, err := s.run(func(c *call) (*fErr, step) {
		c.fixedName = spec.Name // a fixed name is kept on every version
		return s.invoices.insertSalesInvoice(c, body)
	})
	if err != nil {
		return "", err
	}
	name, _ := out.(obj).get("name")
	if spec.Cancel {
		if _, err := s.run(func(c *call) (*fErr, step) {
			return s.invoices.updateSalesInvoice(c, s.db.get(siDT, name.(string)), map[string]any{"docstatus": json.Number("2")})
		}); err != nil {
			return "", err
		}
	}
	return name.(string), nil
}

// Insert creates a document of doctype through the same validation and effects as POST
// /api/resource/{doctype} (a "docstatus": 1 body inserts and submits; a client "name" is kept
// as on 15.72), as Administrator and without HTTP, faults or the latency profile, and returns
// it as that POST answers (numbers as json.Number, child tables as []any). For seeding a site
// with many documents quickly (a Payment Entry of a seeded invoice per payment); the error is
// the refusal the POST would answer, tags stripped.
func (s *Site) Insert(doctype string, doc map[string]any) (map[string]any, error) {
	if metas[doctype] == nil {
		return nil, fmt.Errorf("erpnextsim: Insert: doctype %q is not modelled", doctype)
	}
	body := make(map[string]any, len(doc))
	for k, v := range doc {
		if k != "doctype" {
			body[k] = plainJSON(v)
		}
	}
	out, err := s.run(func(c *call) (*fErr, step) { return s.rest.insert(c, doctype, body) })
	if err != nil {
		return nil, err
	}
	return toPlain(out).(map[string]any), nil
}

// plainJSON turns Go integers in a caller's document into json.Number, as decoding a request
// body would; amounts are given as decimal text or json.Number, never float64.
func plainJSON(v any) any {
	switch x := v.(type) {
	case int:
		return json.Number(strconv.Itoa(x))
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainJSON(e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainJSON(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plainJSON(e)
		}
		return out
	}
	return v
}

// Seed is the JSON document LoadSeed reads (`simulate erpnext --seed FILE`):
//
//	{"customers": ["Test Customer", {"customer_name": "Other Customer"}],
//	 "sales_invoices": [{"customer": "Test Customer",
//	   "items": [{"item_code": "RZP-ITEM", "qty": 1, "rate": "1000.00"}],
//	   "due_date": "2026-12-30", "submit": true, "name": "ACC-SINV-2026-00001"}]}
//
// Customers are strings or objects with customer_name; invoices are
// InvoiceSpec objects, created in order.
type Seed struct {
	Customers     []json.RawMessage `json:"customers"`
	SalesInvoices []InvoiceSpec     `json:"sales_invoices"`
}

// LoadSeed reads a Seed document and creates its customers and invoices.
func (s *Site) LoadSeed(r io.Reader) error {
	var seed Seed
	d := json.NewDecoder(r)
	d.DisallowUnknownFields()
	if err := d.Decode(&seed); err != nil {
		return fmt.Errorf("erpnextsim: seed: %w", err)
	}
	for _, raw := range seed.Customers {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			var o struct {
				CustomerName string `json:"customer_name"`
			}
			if err := json.Unmarshal(raw, &o); err != nil {
				return fmt.Errorf("erpnextsim: seed customer %s: %w", raw, err)
			}
			name = o.CustomerName
		}
		if name == "" {
			return errors.New("erpnextsim: seed customer without a name")
		}
		if err := s.AddCustomer(name); err != nil {
			return err
		}
	}
	for i, spec := range seed.SalesInvoices {
		if _, err := s.AddSalesInvoice(spec); err != nil {
			return fmt.Errorf("erpnextsim: seed sales_invoices[%d]: %w", i, err)
		}
	}
	return nil
}

// Doc returns a copy of a document as GET /api/resource/{doctype}/{name}
// would (nulls omitted, numbers as json.Number, child tables as []any).
func (s *Site) Doc(doctype, name string) (map[string]any, bool) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	s.invoices.refreshStatuses()
	r := s.db.get(doctype, name)
	if r == nil {
		return nil, false
	}
	return toPlain(r.render(false)).(map[string]any), true
}

// Docs returns copies of all documents of a doctype, sorted by name.
func (s *Site) Docs(doctype string) []map[string]any {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	s.invoices.refreshStatuses()
	var out []map[string]any
	for _, r := range s.db.all(doctype) {
		out = append(out, toPlain(r.render(false)).(map[string]any))
	}
	return out
}
