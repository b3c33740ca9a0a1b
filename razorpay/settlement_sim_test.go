package razorpay_test

import (
	"context"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// TestSettlementsAgainstSimulator: the client reads what the simulator settles, through every
// page (130 settlements; one settlement of 1,500 recon rows), and the rows add up.
func TestSettlementsAgainstSimulator(t *testing.T) {
	clk := time.Unix(1768453200, 0)
	var now atomic.Int64
	now.Store(clk.Unix())
	sim := razorpaysim.New(razorpaysim.Options{KeyID: keyID, KeySecret: keySecret, Now: func() time.Time { return time.Unix(now.Load(), 0) }})
	t.Cleanup(sim.Close)
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	c, err := razorpay.NewClient(razorpay.ClientConfig{BaseURL: srv.URL, KeyID: keyID, KeySecret: keySecret, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := sim.Seed(razorpaysim.SeedSpec{Count: 1500, From: clk.Unix() - 86400, To: clk.Unix()}); err != nil {
		t.Fatal(err)
	}
	big, err := sim.Settle()
	if err != nil {
		t.Fatal(err)
	}
	for range 129 {
		now.Add(60)
		if _, err := sim.Seed(razorpaysim.SeedSpec{Count: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Settle(); err != nil {
			t.Fatal(err)
		}
	}
	var listed []razorpay.Settlement
	err = c.ListSettlements(ctx, clk, time.Time{}, func(s *razorpay.Settlement) error {
		listed = append(listed, *s)
		return nil
	})
	if err != nil || len(listed) != 130 || listed[129].ID != big.ID || listed[0].CreatedAt != clk.Unix()+129*60 {
		t.Fatalf("listed %d settlements: %v", len(listed), err)
	}
	got, err := c.GetSettlement(ctx, big.ID)
	if err != nil || *got != *big {
		t.Fatalf("GetSettlement: %+v %v", got, err)
	}
	if _, err := c.GetSettlement(ctx, "setl_DoesNotExist01"); !razorpay.IsNotFound(err) {
		t.Errorf("unknown settlement: %v", err)
	}
	y, m, d := big.ReconDay()
	var rows []razorpay.ReconItem
	err = c.ReconCombined(ctx, y, m, d, func(r *razorpay.ReconItem) error {
		rows = append(rows, *r)
		return nil
	})
	if err != nil || len(rows) != 1500+129 {
		t.Fatalf("recon rows %d: %v", len(rows), err)
	}
	if diff := big.Discrepancy(rows); diff != 0 || big.Amount != 1500*(50000-1000) {
		t.Errorf("settlement %d paise, rows differ by %d", big.Amount, diff)
	}
}
