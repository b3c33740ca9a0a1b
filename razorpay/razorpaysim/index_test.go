package razorpaysim_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// TestListPagesMatchAFullSort checks the indexed pages (binary search plus a slice walk) give
// exactly what filtering and sorting every payment gives: created_at in [from, to], newest
// first, later-created first on equal created_at, list lag hiding recent additions, skip and
// count — over payments created out of order with many equal created_at values.
func TestListPagesMatchAFullSort(t *testing.T) {
	clk := newClock()
	s := newSim(t, nil, razorpaysim.Options{Now: clk.Now})
	rnd := rand.New(rand.NewPCG(1, 2))
	type made struct {
		id      string
		created int64
		added   time.Time
	}
	var all []made
	for range 400 {
		created := t0 + rnd.Int64N(120) // out of order, ~3 payments per second
		p := mustPay(t, s, razorpay.Payment{Amount: 1000, CreatedAt: created}, razorpaysim.PaymentOptions{Lose: true})
		all = append(all, made{p.ID, created, clk.Now()})
		clk.Add(time.Duration(rnd.IntN(1500)) * time.Millisecond)
	}
	lag := 40 * time.Second
	s.SetFaults(razorpaysim.Faults{ListLag: lag})
	for q := range 300 {
		from := t0 + rnd.Int64N(130) - 5
		to := from + rnd.Int64N(80)
		skip, count := rnd.IntN(200), 1+rnd.IntN(100)
		var match []made
		for i := len(all) - 1; i >= 0; i-- { // creation order reversed: the tie order
			m := all[i]
			if m.created >= from && m.created <= to && clk.Now().Sub(m.added) >= lag {
				match = append(match, m)
			}
		}
		slices.SortStableFunc(match, func(a, b made) int { return int(b.created - a.created) })
		var want []string
		for _, m := range match[min(skip, len(match)):][:min(count, max(0, len(match)-skip))] {
			want = append(want, m.id)
		}
		path := fmt.Sprintf("/v1/payments?from=%d&to=%d&skip=%d&count=%d", from, to, skip, count)
		_, m, _ := apiCall(t, s, "GET", path, "", nil)
		var got []string
		for _, it := range m["items"].([]any) {
			got = append(got, it.(map[string]any)["id"].(string))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("query %d %s:\n got %v\nwant %v", q, path, got, want)
		}
	}
}
