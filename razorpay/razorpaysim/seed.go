package razorpaysim

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// seedBatch is how many payments SeedPayments adds per hold of the lock, so that API requests
// are served between batches.
const seedBatch = 1000

// SeedPayments adds n payments, the i-th (from 0) made by gen(i), the fast way to fill the
// account for a benchmark (100,000 payments take about a second of CPU and 120 MB of heap,
// against a minute and 600 MB through CreatePayment): each payment is filled,
// validated and given its order (and link) exactly as CreatePayment does, from the
// PaymentOptions fields NoOrder, Receipt, Link, LinkReferenceID and OnHold, but no webhook
// event is made or recorded, so there is nothing to deliver or replay; captured payments wait
// for settlement like any other. A nil gen makes captured INR payments of ₹500.00 created now.
// It returns the ids in order; on an invalid payment it stops and returns the ids added so far
// with an error naming the index and wrapping the *razorpay.APIError.
func (s *Sim) SeedPayments(n int, gen func(i int) (razorpay.Payment, PaymentOptions)) ([]string, error) {
	if gen == nil {
		gen = func(int) (razorpay.Payment, PaymentOptions) {
			return razorpay.Payment{Amount: 50000}, PaymentOptions{}
		}
	}
	ids := make([]string, 0, n)
	for start := 0; start < n; start += seedBatch {
		if err := s.seedBatch(start, min(n, start+seedBatch), gen, &ids); err != nil {
			return ids, err
		}
	}
	return ids, nil
}

func (s *Sim) seedBatch(from, to int, gen func(int) (razorpay.Payment, PaymentOptions), ids *[]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := from; i < to; i++ {
		p, opt := gen(i)
		if err := s.fillPayment(&p); err != nil {
			return fmt.Errorf("razorpaysim: seed payment %d: %w", i, err)
		}
		*ids = append(*ids, s.addPayment(p, opt).p.ID)
	}
	return nil
}

// SeedSpec describes payments for Seed, the control endpoint POST /__sim/seed/payments and
// `simulate razorpay --seed-payments`. Patterns replace {n} with the payment's number from 1,
// and {n:W} with it zero-padded to W digits (e.g. "ACC-SINV-2026-{n:5}").
type SeedSpec struct {
	Count    int    `json:"count"`    // how many payments, 1–1,000,000 through the control API
	Amount   int64  `json:"amount"`   // minor units of Currency; default 50000
	Currency string `json:"currency"` // default INR
	Status   string `json:"status"`   // authorized, captured (default) or failed
	Method   string `json:"method"`   // default card
	From     int64  `json:"from"`     // created_at of the first payment, unix s; default To − 24 h
	To       int64  `json:"to"`       // created_at of the last, unix s; default now; the rest evenly between
	Invoice  string `json:"invoice"`  // notes.invoice pattern; "" sets no notes
	Receipt  string `json:"receipt"`  // the order's receipt pattern; "" sets none
	NoOrder  bool   `json:"no_order"` // no order at all
}

var seedPattern = regexp.MustCompile(`\{n(?::([0-9]{1,2}))?\}`)

// pattern compiles a SeedSpec pattern into a function of the payment number (from 1); the
// pattern is parsed once, not per payment. "" gives "".
func pattern(p string) func(n int) string {
	if p == "" {
		return func(int) string { return "" }
	}
	lits := seedPattern.Split(p, -1)
	var widths []int
	for _, m := range seedPattern.FindAllStringSubmatch(p, -1) {
		w, _ := strconv.Atoi(m[1]) // "" → 0: no padding
		widths = append(widths, w)
	}
	return func(n int) string {
		var b strings.Builder
		for i, lit := range lits {
			b.WriteString(lit)
			if i < len(widths) {
				fmt.Fprintf(&b, "%0*d", widths[i], n)
			}
		}
		return b.String()
	}
}

// Seed adds spec.Count payments through SeedPayments: payment i (from 0) is created at
// From + (To − From)·i/(Count − 1) and carries the patterns expanded for number i+1. Errors as
// SeedPayments, or a 400 *razorpay.APIError for a count below 1 or From after To.
func (s *Sim) Seed(spec SeedSpec) ([]string, error) {
	if spec.Count < 1 {
		return nil, badRequest("The count must be at least 1.", "count")
	}
	if spec.To == 0 {
		spec.To = s.now().Unix()
	}
	if spec.From == 0 {
		spec.From = spec.To - 86400
	}
	if spec.From > spec.To {
		return nil, badRequest("The from must not be after to.", "from")
	}
	if spec.Amount == 0 {
		spec.Amount = 50000
	}
	span := spec.To - spec.From
	invoice, receipt := pattern(spec.Invoice), pattern(spec.Receipt)
	return s.SeedPayments(spec.Count, func(i int) (razorpay.Payment, PaymentOptions) {
		at := spec.To
		if spec.Count > 1 {
			at = spec.From + span*int64(i)/int64(spec.Count-1)
		}
		p := razorpay.Payment{Amount: spec.Amount, Currency: spec.Currency, Status: spec.Status,
			Method: spec.Method, CreatedAt: at}
		if inv := invoice(i + 1); inv != "" {
			p.Notes = razorpay.Notes{"invoice": inv}
		}
		return p, PaymentOptions{NoOrder: spec.NoOrder, Receipt: receipt(i + 1)}
	})
}

// maxSeed bounds one seeding request through the control API.
const maxSeed = 1_000_000

// controlSeed serves POST /__sim/seed/payments with a SeedSpec → {"count", "first_id",
// "last_id"}.
func (s *Sim) controlSeed(w http.ResponseWriter, r *http.Request) {
	var spec SeedSpec
	if !s.decodeControl(w, r, &spec) {
		return
	}
	if spec.Count > maxSeed {
		s.writeError(w, badRequest("The count may not be greater than "+strconv.Itoa(maxSeed)+".", "count"))
		return
	}
	ids, err := s.Seed(spec) // every payment follows the same spec: the first error is everyone's
	if err != nil {
		s.writeAnyError(w, err)
		return
	}
	writeStd(w, map[string]any{"count": len(ids), "first_id": ids[0], "last_id": ids[len(ids)-1]})
}
