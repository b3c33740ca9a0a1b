package erpnextsim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// recordedNow is the recorded site's clock: 2026-11-30 11:56 IST.
var recordedNow = time.Date(2026, 11, 30, 6, 26, 0, 0, time.UTC)

const key, secret = "KEY", "SECRET"

type harness struct {
	t    *testing.T
	site *erpnextsim.Site
	srv  *httptest.Server
}

func newHarness(t *testing.T, opt erpnextsim.Options) *harness {
	t.Helper()
	if opt.APIKey == "" {
		opt.APIKey, opt.APISecret = key, secret
	}
	if opt.Now == nil {
		opt.Now = func() time.Time { return recordedNow }
	}
	if opt.ClearingAccountType == "" {
		opt.ClearingAccountType = "Bank" // the recorded site's, which these tests answer like
	}
	s := erpnextsim.New(opt)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &harness{t: t, site: s, srv: srv}
}

// seedRecorded creates the recorded site's data (README "Site data"):
// ACC-SINV-2026-00001..17 of 1000.00; 00015 draft, 00017 cancelled, 00016 of
// Other Customer, all due 2026-12-30.
func (h *harness) seedRecorded() {
	h.t.Helper()
	for _, c := range []string{"Test Customer", "Other Customer"} { // as recorded in 06-get-doc-resource
		if err := h.site.AddCustomerSpec(erpnextsim.CustomerSpec{Name: c, CustomerGroup: "Government", Territory: "Rest Of The World"}); err != nil {
			h.t.Fatal(err)
		}
	}
	for i := 1; i <= 17; i++ {
		spec := erpnextsim.InvoiceSpec{Customer: "Test Customer", DueDate: "2026-12-30", Submit: i != 15, Cancel: i == 17,
			Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1000.00"}}}
		if i == 16 {
			spec.Customer = "Other Customer"
		}
		name, err := h.site.AddSalesInvoice(spec)
		if err != nil {
			h.t.Fatal(err)
		}
		if want := fmt.Sprintf("ACC-SINV-2026-%05d", i); name != want {
			h.t.Fatalf("invoice %d named %s, want %s", i, name, want)
		}
	}
}

// resp is a decoded answer.
type resp struct {
	status int
	raw    string
	body   map[string]any
	header http.Header
}

func (r resp) messages() []string { return serverMessages(r.body) }

func (r resp) excType() string { s, _ := r.body["exc_type"].(string); return s }

func (r resp) data() map[string]any {
	m, _ := r.body["data"].(map[string]any)
	if m == nil {
		m, _ = r.body["message"].(map[string]any)
	}
	return m
}

// serverMessages decodes _server_messages: a JSON string of JSON strings.
func serverMessages(body map[string]any) []string {
	raw, _ := body["_server_messages"].(string)
	if raw == "" {
		return nil
	}
	var list []string
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		return []string{"UNDECODABLE: " + raw}
	}
	var out []string
	for _, item := range list {
		var m map[string]any
		if err := json.Unmarshal([]byte(item), &m); err != nil {
			out = append(out, "UNDECODABLE: "+item)
			continue
		}
		out = append(out, fmt.Sprint(m["message"]))
	}
	return out
}

func (h *harness) do(method, path string, body any, hdr ...string) resp {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		js, _ := json.Marshal(b)
		rd = bytes.NewReader(js)
	}
	req, err := http.NewRequest(method, h.srv.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+key+":"+secret)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := resp{status: res.StatusCode, raw: string(raw), header: res.Header}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	_ = d.Decode(&r.body)
	return r
}

// pe is the recorded Payment Entry body with overrides (nil deletes a key).
func pe(over map[string]any) map[string]any {
	b := map[string]any{"payment_type": "Receive", "company": "Example Company", "posting_date": "2026-11-30",
		"party_type": "Customer", "party": "Test Customer", "mode_of_payment": "Razorpay",
		"paid_to": erpnextsim.RazorpayClearing, "paid_amount": 1000, "received_amount": 1000,
		"reference_no": "pay_00001", "reference_date": "2026-11-30",
		"references": []any{map[string]any{"reference_doctype": "Sales Invoice", "reference_name": "ACC-SINV-2026-00001", "allocated_amount": 1000}}}
	for k, v := range over {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

func refs(pairs ...any) []any {
	var out []any
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, map[string]any{"reference_doctype": "Sales Invoice", "reference_name": pairs[i], "allocated_amount": pairs[i+1]})
	}
	return out
}

const pePath = "/api/resource/Payment%20Entry"
const siPath = "/api/resource/Sales%20Invoice"

// expectError checks status, exc_type and the decoded message texts.
func (r resp) expectError(t *testing.T, status int, excType string, msgs ...string) {
	t.Helper()
	if r.status != status || r.excType() != excType {
		t.Fatalf("got %d %s, want %d %s; body %s", r.status, r.excType(), status, excType, r.raw)
	}
	got := r.messages()
	if len(msgs) > 0 && strings.Join(got, "\n") != strings.Join(msgs, "\n") {
		t.Fatalf("messages %q, want %q", got, msgs)
	}
}

func num(v any) string {
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	return fmt.Sprint(v)
}

// field returns doc[k] rendered as text ("1000.0", "Paid").
func field(doc map[string]any, k string) string {
	if doc == nil {
		return "<nil doc>"
	}
	return num(doc[k])
}

func row0(doc map[string]any, table string) map[string]any {
	rows, _ := doc[table].([]any)
	if len(rows) == 0 {
		return nil
	}
	m, _ := rows[0].(map[string]any)
	return m
}

func (h *harness) invoice(name string) map[string]any {
	h.t.Helper()
	d, ok := h.site.Doc("Sales Invoice", name)
	if !ok {
		h.t.Fatalf("no invoice %s", name)
	}
	return d
}
