package erpnextsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Benchmarks of the requests a booking makes, on a site holding n submitted Payment
// Entries, each paying its own Sales Invoice of one of 100 customers, every tenth linked to a
// Payment Request: go test -run '^$' -bench . -benchmem ./frappe/erpnextsim. The sites are
// built once per process (100,000 entries take a few seconds) and shared by the benchmarks.

var benchSizes = []int{100, 100_000}

var (
	benchMu    sync.Mutex
	benchSites = map[int]*Site{}
)

const benchCustomers = 100

// benchSite returns the shared site of n entries. The first call builds every size, so that
// every benchmark runs beside the same live heap (the sizes compare request costs, not the
// garbage collector's), and each benchmark collects garbage before its timer starts.
func benchSite(b *testing.B, n int) *Site {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if len(benchSites) == 0 {
		for _, size := range benchSizes {
			benchSites[size] = buildBenchSite(b, size)
		}
	}
	s := benchSites[n]
	runtime.GC()
	return s
}

func buildBenchSite(b *testing.B, n int) *Site {
	b.Helper()
	now := time.Date(2026, 12, 1, 5, 50, 0, 0, time.UTC)
	s := New(Options{APIKey: "k", APISecret: "s", Now: func() time.Time { return now }, RequestLogLimit: -1})
	for c := 0; c < benchCustomers; c++ {
		if err := s.AddCustomer(benchCustomer(c)); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		inv := benchInvoice(b, s, i)
		var pr string
		if i%10 == 0 {
			out, err := s.run(func(c *call) (*fErr, step) {
				c.args = map[string]any{"dt": siDT, "dn": inv, "submit_doc": json.Number("1"), "mute_email": json.Number("1")}
				return s.requests.makePaymentRequest(c)
			})
			if err != nil {
				b.Fatal(err)
			}
			v, _ := out.(obj).get("name")
			pr, _ = v.(string)
		}
		if _, err := s.run(func(c *call) (*fErr, step) {
			return s.entries.insertPaymentEntry(c, benchEntry(i, benchRef(i), inv, pr))
		}); err != nil {
			b.Fatalf("seed entry %d: %v", i, err)
		}
	}
	return s
}

func benchCustomer(i int) string { return fmt.Sprintf("Customer %03d", i%benchCustomers) }

func benchRef(i int) string { return fmt.Sprintf("pay_B%013d", i) }

// benchInvoice adds a submitted invoice of 1180.00 for customer i % 100.
func benchInvoice(b *testing.B, s *Site, i int) string {
	b.Helper()
	inv, err := s.AddSalesInvoice(InvoiceSpec{Customer: benchCustomer(i), DueDate: "2026-12-31", PostingDate: "2026-12-01", Submit: true,
		Items: []Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "1180.00"}}})
	if err != nil {
		b.Fatal(err)
	}
	return inv
}

// benchEntry is the body the connector posts: a submitted receipt of the whole invoice.
func benchEntry(i int, ref, inv, pr string) map[string]any {
	row := map[string]any{"reference_doctype": siDT, "reference_name": inv, "allocated_amount": json.Number("1180.00")}
	if pr != "" {
		row["payment_request"] = pr
	}
	return map[string]any{"payment_type": "Receive", "company": DefaultCompany, "posting_date": "2026-12-01", "party_type": "Customer",
		"party": benchCustomer(i), "mode_of_payment": ModeOfPayment, "paid_to": RazorpayClearing, "paid_amount": json.Number("1180.00"),
		"received_amount": json.Number("1180.00"), "reference_no": ref, "reference_date": "2026-12-01", "docstatus": json.Number("1"),
		"custom_remarks": json.Number("1"), "remarks": "Razorpay payment " + ref, "references": []any{row}}
}

// serve sends one request to the site's handler and fails unless it answers want.
func serve(b *testing.B, s *Site, method, target, body string, want int) {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Header.Set("Authorization", "token k:s")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != want {
		b.Fatalf("%s %s: %d %s", method, target, w.Code, w.Body.String())
	}
}

func listURL(doctype string, q map[string]string) string {
	v := url.Values{}
	for k, x := range q {
		v.Set(k, x)
	}
	return "/api/resource/" + url.PathEscape(doctype) + "?" + v.Encode()
}

// BenchmarkListByReferenceNo is the connector's lookup before create (findByReference).
func BenchmarkListByReferenceNo(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s := benchSite(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				serve(b, s, http.MethodGet, listURL(peDT, map[string]string{"fields": `["name","reference_no","docstatus"]`,
					"filters": `[["reference_no","=","` + benchRef(i%n) + `"],["docstatus","!=",2]]`, "order_by": "creation asc", "limit_page_length": "0"}), "", 200)
			}
		})
	}
}

// BenchmarkListByPaymentRequest is checkoutEntries' joined list (child filter, qualified order).
func BenchmarkListByPaymentRequest(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s := benchSite(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				pr := fmt.Sprintf("ACC-PRQ-2026-%05d", 1+(i%((n+9)/10)))
				serve(b, s, http.MethodGet, listURL(peDT, map[string]string{"fields": `["name","reference_no","paid_amount"]`,
					"filters":  `[["Payment Entry Reference","payment_request","=","` + pr + `"],["docstatus","=",1]]`,
					"order_by": "`tabPayment Entry`.`creation` asc", "limit_page_length": "0"}), "", 200)
			}
		})
	}
}

// BenchmarkGetSalesInvoice is the invoice read of a booking.
func BenchmarkGetSalesInvoice(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s := benchSite(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				serve(b, s, http.MethodGet, "/api/resource/Sales%20Invoice/"+fmt.Sprintf("ACC-SINV-2026-%05d", 1+i%n), "", 200)
			}
		})
	}
}

// BenchmarkGetPaymentEntryMethod is get_payment_entry on a paid invoice of a busy customer
// (party and account balances read from the books).
func BenchmarkGetPaymentEntryMethod(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s := benchSite(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				serve(b, s, http.MethodPost, "/api/method/"+getPaymentEntryCmd, fmt.Sprintf(`{"dt":"Sales Invoice","dn":"ACC-SINV-2026-%05d",`+
					`"party_amount":1180.00,"bank_account":"Razorpay Clearing - EC"}`, 1+i%n), 200)
			}
		})
	}
}

// BenchmarkInsertSubmitPaymentEntry is the booking itself: POST Payment Entry with docstatus 1
// against an unpaid invoice (made before the timer starts), on a site already holding n entries.
func BenchmarkInsertSubmitPaymentEntry(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s := benchSite(b, n)
			invs := make([]string, b.N)
			for i := range invs {
				invs[i] = benchInvoice(b, s, i)
			}
			bodies := make([]string, b.N)
			for i := range bodies {
				raw, _ := json.Marshal(benchEntry(i, fmt.Sprintf("pay_I%s_%09d", b.Name()[len(b.Name())-3:], len(s.db.docs[peDT])+i), invs[i], ""))
				bodies[i] = string(raw)
			}
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				serve(b, s, http.MethodPost, "/api/resource/Payment%20Entry", bodies[i], 200)
			}
		})
	}
}
