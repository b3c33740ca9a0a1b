package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// benchCustomer owns every seeded Sales Invoice.
const benchCustomer = "Bench Customer"

// invoiceRate is each seeded invoice's item rate: ₹1,180.00, the amount of one benchmark payment.
const invoiceRate = "1180.00"

// invoicesFor returns n submitted invoices named invoiceName(1..n), one payment's amount each.
func invoicesFor(n int) []erpnextsim.InvoiceSpec {
	out := make([]erpnextsim.InvoiceSpec, n)
	for i := range out {
		out[i] = erpnextsim.InvoiceSpec{Customer: benchCustomer, Name: invoiceName(i + 1), Submit: true,
			Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: invoiceRate}}}
	}
	return out
}

// erpSim is one `razorpay-erpnext simulate erpnext` process.
type erpSim struct {
	*proc
	url string
}

// startERPNext starts the ERPNext simulator as its own process with Bench Customer and
// invoices, every request delayed by latency (0: none).
func (b *bench) startERPNext(ctx context.Context, invoices []erpnextsim.InvoiceSpec, latency time.Duration) (*erpSim, error) {
	seed, err := json.Marshal(map[string]any{"customers": []string{benchCustomer}, "sales_invoices": invoices})
	if err != nil {
		return nil, err
	}
	path := filepath.Join(b.dir, fmt.Sprintf("seed-%d.json", time.Now().UnixNano()))
	if err := os.WriteFile(path, seed, 0o600); err != nil {
		return nil, err
	}
	args := []string{"simulate", "erpnext", "--listen", "127.0.0.1:0", "--api-key", erpnextKey, "--api-secret", b.erpSecret,
		"--seed", path}
	if latency > 0 {
		args = append(args, "--latency", latency.String())
	}
	p, addr, err := startProc(ctx, "ERPNext simulator", b.bin, args, nil, func(line string) (string, bool) {
		_, rest, ok := strings.Cut(line, "ERPNext simulator on ")
		if !ok {
			return "", false
		}
		url, _, _ := strings.Cut(rest, " ")
		return url, url != ""
	})
	if err != nil {
		return nil, err
	}
	return &erpSim{proc: p, url: addr}, nil
}
