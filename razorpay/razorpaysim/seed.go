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

// SeedPayments is Sim.SeedPayments.
func (pm *payments) SeedPayments(n int, gen func(i int) (razorpay.Payment, PaymentOptions)) ([]string, error) {
	if gen == nil {
		gen = func(int) (razorpay.Payment, PaymentOptions) {
			return razorpay.Payment{Amount: 50000}, PaymentOptions{}
		}
	}
	ids := make([]string, 0, n)
	for start := 0; start < n; start += seedBatch {
		if err := pm.seedBatch(start, min(n, start+seedBatch), gen, &ids); err != nil {
			return ids, err
		}
	}
	return ids, nil
}

func (pm *payments) seedBatch(from, to int, gen func(int) (razorpay.Payment, PaymentOptions), ids *[]string) error {
	pm.st.mu.Lock()
	defer pm.st.mu.Unlock()
	for i := from; i < to; i++ {
		p, opt := gen(i)
		if err := pm.fillPayment(&p); err != nil {
			return fmt.Errorf("razorpaysim: seed payment %d: %w", i, err)
		}
		*ids = append(*ids, pm.addPayment(p, opt).p.ID)
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

// Seed is Sim.Seed.
func (pm *payments) Seed(spec SeedSpec) ([]string, error) {
	if spec.Count < 1 {
		return nil, badRequest("The count must be at least 1.", "count")
	}
	if spec.To == 0 {
		spec.To = pm.now().Unix()
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
	return pm.SeedPayments(spec.Count, func(i int) (razorpay.Payment, PaymentOptions) {
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
func (cs *control) controlSeed(w http.ResponseWriter, r *http.Request) {
	var spec SeedSpec
	if !cs.decodeControl(w, r, &spec) {
		return
	}
	if spec.Count > maxSeed {
		cs.api.writeError(w, badRequest("The count may not be greater than "+strconv.Itoa(maxSeed)+".", "count"))
		return
	}
	ids, err := cs.payments.Seed(spec) // every payment follows the same spec: the first error is everyone's
	if err != nil {
		cs.writeAnyError(w, err)
		return
	}
	writeStd(w, map[string]any{"count": len(ids), "first_id": ids[0], "last_id": ids[len(ids)-1]})
}
