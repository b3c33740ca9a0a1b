package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// benchAccount is the Razorpay account id of every webhook the benchmark sends.
const benchAccount = "acc_BenchAccount01"

// Placeholders of the webhook template, each as long as what replaces it.
const (
	phPayment = "pay_PPPPPPPPPPPPPP" // pay_ + 14 letters and digits
	phOrder   = "order_OOOOOOOOOOOOOO"
	phInvoice = "BENCH-SINV-IIIIIII" // invoiceName
)

// corpus generates signed payment.captured webhooks: delivery i is a new payment, or, for 3 of
// every 25 deliveries (12 %), an exact repeat of delivery i−5 (same event id, body and
// signature), as Razorpay's at-least-once sender repeats them. Payment k names the invoice
// invoiceName(first + k % invoices) (Bench Customer, ₹1,180.00: amountMinor paise): over n
// deliveries (payments 0..n−1, some numbers unused by the repeats) with n invoices, no two
// payments name the same invoice.
type corpus struct {
	tag      string // 5 letters and digits, distinct per run, in every id
	secret   string
	first    int // the first invoice's number
	invoices int
	tmpl     []byte
}

// amountMinor is every benchmark payment's amount: ₹1,180.00 in paise.
const amountMinor = 118000

// newCorpus is a corpus over invoices 1..invoices.
func newCorpus(tag, secret string, invoices int) *corpus {
	return newCorpusFrom(tag, secret, 1, invoices)
}

// newCorpusFrom is a corpus over invoices first..first+invoices−1.
func newCorpusFrom(tag, secret string, first, invoices int) *corpus {
	now := time.Now().Unix()
	ev := map[string]any{
		"entity": "event", "account_id": benchAccount, "event": "payment.captured", "contains": []string{"payment"},
		"payload": map[string]any{"payment": map[string]any{"entity": map[string]any{
			"id": phPayment, "entity": "payment", "amount": amountMinor, "currency": "INR", "status": "captured",
			"order_id": phOrder, "invoice_id": nil, "international": false, "method": "upi", "amount_refunded": 0,
			"refund_status": nil, "captured": true, "description": "Benchmark payment", "card_id": nil, "bank": nil,
			"wallet": nil, "vpa": "customer@exampleupi", "email": "customer@example.com", "contact": "+919000000001",
			"notes": map[string]string{"invoice": phInvoice}, "fee": 2784, "tax": 424, "error_code": nil,
			"error_description": nil, "error_source": nil, "error_step": nil, "error_reason": nil,
			"acquirer_data": map[string]string{"rrn": "612345678901", "upi_transaction_id": "AB12CD34EF56GH78"},
			"created_at":    now, "base_amount": amountMinor,
		}}},
		"created_at": now,
	}
	tmpl, _ := json.Marshal(ev)
	return &corpus{tag: tag, secret: secret, first: first, invoices: max(invoices, 1), tmpl: tmpl}
}

// source is the delivery whose event delivery i repeats (i itself for a new payment).
func source(i int) int {
	switch i % 25 {
	case 7, 15, 23:
		return i - 5
	}
	return i
}

// isRepeat reports whether delivery i repeats an earlier one.
func isRepeat(i int) bool { return source(i) != i }

// payments is how many distinct payments deliveries 0..n−1 carry.
func payments(n int) int {
	k := 0
	for i := 0; i < n; i++ {
		if !isRepeat(i) {
			k++
		}
	}
	return k
}

// paymentID is the id of payment k ("pay_" + tag + 9 digits).
func (c *corpus) paymentID(k int) string { return fmt.Sprintf("pay_%s%09d", c.tag, k) }

// eventID is the X-Razorpay-Event-Id of payment k's webhook (14 letters and digits).
func (c *corpus) eventID(k int) string { return fmt.Sprintf("%s%09d", c.tag, k) }

// invoiceOf is the name of the invoice payment k names.
func (c *corpus) invoiceOf(k int) string { return invoiceName(c.first + k%c.invoices) }

// invoiceName is the name of seeded Sales Invoice n (from 1).
func invoiceName(n int) string { return fmt.Sprintf("BENCH-SINV-%07d", n) }

// delivery returns event id, body and signature of delivery i.
func (c *corpus) delivery(i int) (string, []byte, string) { return c.payment(source(i)) }

// payment returns event id, body and signature of the webhook of payment k.
func (c *corpus) payment(k int) (string, []byte, string) {
	body := bytes.Replace(c.tmpl, []byte(phPayment), []byte(c.paymentID(k)), 1)
	body = bytes.Replace(body, []byte(phOrder), []byte(fmt.Sprintf("order_%s%09d", c.tag, k)), 1)
	body = bytes.Replace(body, []byte(phInvoice), []byte(c.invoiceOf(k)), 1)
	return c.eventID(k), body, razorpay.Sign(c.secret, body)
}

// outcome is how one delivery ended.
type outcome int

const (
	outAccepted  outcome = iota // 200 {"status":"accepted"}
	outDuplicate                // 200 {"status":"duplicate"}
	outRefused                  // 503: not stored, the sender retries (admission control)
	outStatus                   // any other status
	outTimeout                  // no answer within the client's deadline
	outError                    // transport error (connection refused, reset)
	nOutcomes
)

// Counts are the outcomes of a run's deliveries.
type Counts struct {
	Accepted  int `json:"accepted"`
	Duplicate int `json:"duplicate"`
	Refused   int `json:"refused_503"`
	Status    int `json:"other_status"`
	Timeout   int `json:"timeouts"`
	Error     int `json:"transport_errors"`
	Skipped   int `json:"not_sent_client_bound,omitempty"`
}

// Errors is every delivery that was not acknowledged with a 200 (503s included).
func (c Counts) Errors() int { return c.Refused + c.Status + c.Timeout + c.Error }

// tally is a concurrency-safe outcome counter with the latencies of every delivery.
type tally struct {
	n   [nOutcomes]atomic.Int64
	mu  sync.Mutex
	lat []time.Duration
}

func (t *tally) add(o outcome, lat time.Duration) {
	t.n[o].Add(1)
	t.mu.Lock()
	t.lat = append(t.lat, lat)
	t.mu.Unlock()
}

func (t *tally) counts() Counts {
	return Counts{Accepted: int(t.n[outAccepted].Load()), Duplicate: int(t.n[outDuplicate].Load()),
		Refused: int(t.n[outRefused].Load()), Status: int(t.n[outStatus].Load()),
		Timeout: int(t.n[outTimeout].Load()), Error: int(t.n[outError].Load())}
}

// newLoadClient is the HTTP client of the load generators: connections are kept and reused
// (Razorpay's sender keeps them too), as many as there are requests in flight.
func newLoadClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        8192,
		MaxIdleConnsPerHost: 8192,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}}
}

// deliverTimeout is the client's deadline per delivery: twice Razorpay's 5 s, so that late
// answers are measured rather than cut off.
const deliverTimeout = 10 * time.Second

// post delivers one webhook to url and classifies the answer.
// deliver posts a webhook until it is stored, as Razorpay's sender retries (spec/razorpay.md
// §1.4): a 503 (the daemon's admission bound, server.max_in_flight), a time-out or a transport
// error is tried again a second later, at most a minute of tries; the first other answer is
// returned. A duplicate on a retry means an earlier try was stored after all (its answer lost):
// that counts as accepted.
func deliver(ctx context.Context, client *http.Client, url, eventID string, body []byte, sig string) outcome {
	for try := 0; ; try++ {
		o := post(ctx, client, url, eventID, body, sig)
		if o == outDuplicate && try > 0 {
			return outAccepted
		}
		if (o != outRefused && o != outTimeout && o != outError) || try >= 60 || ctx.Err() != nil {
			return o
		}
		t := time.NewTimer(time.Second) // Retry-After: 1
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

func post(ctx context.Context, client *http.Client, url, eventID string, body []byte, sig string) outcome {
	ctx, cancel := context.WithTimeout(ctx, deliverTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return outError
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Razorpay-Webhook/v1")
	req.Header.Set("X-Razorpay-Event-Id", eventID)
	req.Header.Set("X-Razorpay-Signature", sig)
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return outTimeout
		}
		return outError
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	switch {
	case err != nil:
		return outError
	case resp.StatusCode == http.StatusServiceUnavailable:
		return outRefused
	case resp.StatusCode != http.StatusOK:
		return outStatus
	case bytes.Contains(answer, []byte(`"accepted"`)):
		return outAccepted
	case bytes.Contains(answer, []byte(`"duplicate"`)):
		return outDuplicate
	}
	return outStatus
}

// closedResult is one closed-loop run.
type closedResult struct {
	Counts  Counts
	Elapsed time.Duration
	Latency Latency
}

// closedLoop runs `callers` goroutines that each deliver, wait for the answer and deliver the
// next, for d: deliveries first..., numbered from an atomic counter so no two callers send the
// same one. Every figure counts only deliveries answered within d.
func closedLoop(ctx context.Context, callers int, d time.Duration, first int, send func(i int) outcome) (closedResult, int) {
	var t tally
	elapsed, next := closedLoopInto(ctx, &t, callers, d, first, send)
	return closedResult{Counts: t.counts(), Elapsed: elapsed, Latency: summarise(t.lat)}, next
}

// closedLoopInto is closedLoop adding its outcomes and latencies to t (several slices of one
// measurement add up in one tally); it returns the time it ran and the next delivery number.
func closedLoopInto(ctx context.Context, t *tally, callers int, d time.Duration, first int, send func(i int) outcome) (time.Duration, int) {
	var next atomic.Int64
	next.Store(int64(first))
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for c := 0; c < callers; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				began := time.Now()
				o := send(i)
				t.add(o, time.Since(began))
			}
		}()
	}
	wg.Wait()
	return time.Since(start), int(next.Load())
}

// perSecond is n events over d.
func perSecond(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(n)/d.Seconds(), 'f', 1, 64), 64)
	return v
}

// runTag is prefix followed by random letters and digits, 5 characters in all: the part of
// every id that keeps one run's payments apart from another's.
func runTag(prefix string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte(prefix)
	for len(b) < 5 {
		b = append(b, alphabet[mrand.IntN(len(alphabet))])
	}
	return string(b[:5])
}
