package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// demoResult is the duplicate-delivery table; `demo --json` prints it as one object with
// amounts as decimal strings.
type demoResult struct {
	Arrivals       int      `json:"arrivals"`
	Accepted       int      `json:"accepted"`
	Duplicates     int      `json:"duplicates"`
	ReceiptsBooked int      `json:"receipts_booked"`
	BooksTotal     string   `json:"books_total"`
	GatewayPaid    string   `json:"gateway_paid"`
	Difference     string   `json:"difference"`
	Invoice        string   `json:"invoice"`
	InvoiceStatus  string   `json:"invoice_status"`
	PaymentID      string   `json:"payment_id"`
	PaymentEntries []string `json:"payment_entries"`
	// booked and paid are the two totals as money, for the table; the JSON has their decimals.
	booked, paid razorpay.Money
}

func (m *Main) demoCmd() *cobra.Command {
	var asJSON bool
	var store demoStore
	c := &cobra.Command{
		Use:   "demo [--json] [--driver sqlite|postgres|mysql [--dsn DSN]]",
		Short: "Run everything embedded: one signed payment.captured delivered three times books one receipt",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := runDemo(cmd.Context(), store, m.Stderr)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(m.Stdout)
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else {
				printDemo(m.Stdout, res)
			}
			if res.ReceiptsBooked != 1 || res.Difference != "0.00" {
				return &exitError{code: exitFailure, err: fmt.Errorf("books do not equal the gateway")}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of the table")
	c.Flags().StringVar(&store.driver, "driver", "sqlite",
		"store driver: sqlite (a temporary file), postgres or mysql (a database of the demo's own on the --dsn server, dropped at the end)")
	c.Flags().StringVar(&store.dsn, "dsn", "",
		"server for --driver postgres or mysql (default "+demoPostgresDSN+" or "+demoMySQLDSN+")")
	return c
}

// demoStore is the demo's --driver and --dsn.
type demoStore struct{ driver, dsn string }

// demoSite is the ERPNext simulator the demo books into, served on a loopback port, with one
// submitted ₹12,000.00 Sales Invoice.
type demoSite struct {
	sim               *erpnextsim.Site
	srv               *http.Server
	url               string
	apiKey, apiSecret string
	invoice           string
}

func newDemoSite() (*demoSite, error) {
	s := &demoSite{apiKey: randHex(8), apiSecret: randHex(16)}
	s.sim = erpnextsim.New(erpnextsim.Options{APIKey: s.apiKey, APISecret: s.apiSecret})
	const customer = "Demo Customer"
	if err := s.sim.AddCustomer(customer); err != nil {
		return nil, err
	}
	invoice, err := s.sim.AddSalesInvoice(erpnextsim.InvoiceSpec{
		Customer: customer, Submit: true,
		Items: []erpnextsim.Item{{ItemCode: "RZP-ITEM", Qty: 1, Rate: "12000.00"}},
	})
	if err != nil {
		return nil, err
	}
	s.invoice = invoice
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.srv = &http.Server{Handler: s.sim, ReadHeaderTimeout: 5 * time.Second}
	go s.srv.Serve(l)
	s.url = "http://" + l.Addr().String()
	return s, nil
}

// demoConfig is the daemon's configuration for the demo: loopback only, no admin listener,
// site's ERPNext, db as the store.
func demoConfig(site *demoSite, db config.Database, whSecret string) (connector.Config, error) {
	cfg := config.Defaults()
	cfg.Listen = "127.0.0.1:0"
	cfg.AdminListen = ""
	cfg.Database = db
	cfg.Razorpay.WebhookSecrets = []string{whSecret}
	cfg.Razorpay.AccountID = "acc_DemoAccount0001"
	cfg.ERPNext.URL = site.url
	cfg.ERPNext.APIKey, cfg.ERPNext.APISecret = site.apiKey, site.apiSecret
	cfg.Mapping.Company = erpnextsim.DefaultCompany
	cfg.Worker.Poll = connector.Duration(100 * time.Millisecond)
	cfg.Log.Level = "error"
	if p := cfg.Validate(); len(p) > 0 {
		return cfg, &config.Error{Problems: p}
	}
	return cfg, nil
}

// runDemo wires the store (SQLite in a temp dir unless st names another driver), the ERPNext
// simulator and the real webhook server on loopback ports, delivers one signed
// payment.captured three times over HTTP, waits until the inbox is idle and reads the books.
func runDemo(ctx context.Context, st demoStore, logw io.Writer) (*demoResult, error) {
	dir, err := os.MkdirTemp("", "razorpay-erpnext-demo-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	site, err := newDemoSite()
	if err != nil {
		return nil, err
	}
	defer site.srv.Close()
	db, drop, err := demoDatabase(ctx, st.driver, st.dsn, dir, logw)
	if err != nil {
		return nil, err
	}
	defer drop()
	whSecret := randHex(16)
	cfg, err := demoConfig(site, db, whSecret)
	if err != nil {
		return nil, err
	}
	d, err := openDaemon(ctx, cfg, newLogger(logw, cfg.Log))
	if err != nil {
		return nil, err
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- d.run(runCtx) }()
	defer func() { stop(); <-done }()

	paymentID := "pay_" + randAlnum(14)
	res := &demoResult{Arrivals: 3, PaymentID: paymentID, Invoice: site.invoice, paid: razorpay.INR(1200000)}
	res.GatewayPaid = res.paid.Decimal()
	body := demoPayment(cfg.Razorpay.AccountID, paymentID, site.invoice, time.Now())
	url := "http://" + d.pub.Addr().String() + cfg.WebhookPath
	if err := deliverDemo(ctx, res, url, razorpay.Sign(whSecret, body), body); err != nil {
		return nil, err
	}
	if err := waitIdle(ctx, d.db, 30*time.Second); err != nil {
		return nil, err
	}
	return res, readDemoBooks(site, res)
}

// deliverDemo delivers body res.Arrivals times under one event id and counts the answers.
func deliverDemo(ctx context.Context, res *demoResult, url, sig string, body []byte) error {
	eventID := randAlnum(14)
	for i := 0; i < res.Arrivals; i++ {
		status, err := deliver(ctx, url, eventID, sig, body)
		if err != nil {
			return err
		}
		switch status {
		case "accepted":
			res.Accepted++
		case "duplicate":
			res.Duplicates++
		default:
			return fmt.Errorf("delivery %d: unexpected answer %q", i+1, status)
		}
	}
	return nil
}

// readDemoBooks fills res from the site: the submitted Payment Entries of the payment, their
// total against the ₹12,000.00 paid, and the invoice's status.
func readDemoBooks(site *demoSite, res *demoResult) error {
	var booked int64
	for _, pe := range site.sim.Docs("Payment Entry") {
		if pe["reference_no"] != res.PaymentID || fmt.Sprint(pe["docstatus"]) != "1" {
			continue
		}
		v, err := razorpay.ParseDecimal(fmt.Sprint(pe["received_amount"]), 2)
		if err != nil {
			return fmt.Errorf("Payment Entry %v: %w", pe["name"], err)
		}
		booked += v
		res.PaymentEntries = append(res.PaymentEntries, fmt.Sprint(pe["name"]))
	}
	res.ReceiptsBooked = len(res.PaymentEntries)
	res.booked = razorpay.INR(booked)
	res.BooksTotal = res.booked.Decimal()
	res.Difference = razorpay.INR(booked - res.paid.Minor()).Decimal()
	if inv, ok := site.sim.Doc("Sales Invoice", res.Invoice); ok {
		res.InvoiceStatus = fmt.Sprint(inv["status"])
	}
	return nil
}

// demoPayment is a compact payment.captured body for ₹12,000.00 naming the invoice in notes.
func demoPayment(account, paymentID, invoice string, now time.Time) []byte {
	ev := map[string]any{
		"entity": "event", "account_id": account, "event": "payment.captured", "contains": []string{"payment"},
		"payload": map[string]any{"payment": map[string]any{"entity": map[string]any{
			"id": paymentID, "entity": "payment", "amount": 1200000, "currency": "INR", "status": "captured",
			"order_id": "order_" + randAlnum(14), "method": "upi", "captured": true, "vpa": "customer@exampleupi",
			"email": "customer@example.com", "contact": "+919000000001", "notes": map[string]string{"invoice": invoice},
			"fee": 28320, "tax": 4320, "acquirer_data": map[string]string{"rrn": "612345678901"},
			"created_at": now.Unix(), "base_amount": 1200000,
		}}},
		"created_at": now.Unix(),
	}
	b, _ := json.Marshal(ev)
	return b
}

func deliver(ctx context.Context, url, eventID, sig string, body []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Razorpay-Webhook/v1")
	req.Header.Set("X-Razorpay-Event-Id", eventID)
	req.Header.Set("X-Razorpay-Signature", sig)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Status string `json:"status"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("webhook answered %d", resp.StatusCode)
	}
	return out.Status, nil
}

// waitIdle waits until no inbox row is pending or processing.
func waitIdle(ctx context.Context, s connector.Store, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		counts, err := s.CountByStatus(ctx)
		if err != nil {
			return err
		}
		if counts[connector.StatusPending]+counts[connector.StatusProcessing] == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("inbox not idle after %s: %v", limit, counts)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func printDemo(w io.Writer, r *demoResult) {
	fmt.Fprintf(w, "razorpay-erpnext demo: payment %s for Sales Invoice %s, one webhook delivered %d times\n\n", r.PaymentID, r.Invoice, r.Arrivals)
	rows := [][2]string{
		{"arrivals", fmt.Sprintf("%d (accepted %d, duplicate %d)", r.Arrivals, r.Accepted, r.Duplicates)},
		{"receipts booked", fmt.Sprintf("%d %s", r.ReceiptsBooked, strings.Join(r.PaymentEntries, ", "))},
		{"cash received per the books", r.booked.Display()},
		{"what the gateway paid", r.paid.Display()},
		{"difference", razorpay.INR(r.booked.Minor() - r.paid.Minor()).Display()},
		{"invoice status", r.InvoiceStatus},
	}
	for _, row := range rows {
		fmt.Fprintf(w, "  %-30s %s\n", row[0], row[1])
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// randAlnum is an id body in Razorpay's shape: n case-sensitive alphanumerics.
func randAlnum(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return string(b)
}
