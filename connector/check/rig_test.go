package check_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/internal/sitetest"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

const (
	erpSecret    = sitetest.ERPSecret
	rzpKey       = sitetest.RzpKey
	rzpSecret    = sitetest.RzpSecret
	account      = sitetest.Account
	cashClearing = sitetest.CashClearing
)

// rig is the simulated ERPNext site (a customer "Test Customer" and whatever the test adds),
// the Razorpay simulator when asked, and a configuration naming them, on the clock's start.
type rig struct {
	t     *testing.T
	site  *erpnextsim.Site
	cfg   connector.Config
	front func(http.Handler) http.Handler
}

type rigOption func(*rig)

// withRazorpay adds the Razorpay simulator and configures its API keys.
func withRazorpay(r *rig) {
	sim := razorpaysim.New(razorpaysim.Options{KeyID: rzpKey, KeySecret: rzpSecret, AccountID: account, Now: func() time.Time { return sitetest.T0 }})
	r.t.Cleanup(sim.Close)
	srv := httptest.NewServer(sim)
	r.t.Cleanup(srv.Close)
	r.cfg.Razorpay.KeyID, r.cfg.Razorpay.KeySecret, r.cfg.Razorpay.APIURL = rzpKey, rzpSecret, srv.URL
}

// withConfig changes the configuration.
func withConfig(f func(*connector.Config)) rigOption { return func(r *rig) { f(&r.cfg) } }

// withFront puts a handler before the ERPNext simulator.
func withFront(f func(http.Handler) http.Handler) rigOption { return func(r *rig) { r.front = f } }

func newRig(t *testing.T, opts ...rigOption) *rig {
	t.Helper()
	r := &rig{t: t, cfg: sitetest.Config()}
	r.site = erpnextsim.New(erpnextsim.Options{APIKey: sitetest.ERPKey, APISecret: erpSecret, Now: func() time.Time { return sitetest.T0 }})
	if err := r.site.AddCustomer("Test Customer"); err != nil {
		t.Fatal(err)
	}
	r.cfg.Reconcile.IntegrationRequests = false
	r.cfg.ERPNext.APIKey, r.cfg.ERPNext.APISecret = sitetest.ERPKey, erpSecret
	for _, o := range opts {
		o(r)
	}
	var h http.Handler = r.site
	if r.front != nil {
		h = r.front(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	r.cfg.ERPNext.URL = srv.URL
	return r
}

// setlRig is a rig with the Razorpay simulator, settlements on and the settlement accounts.
type setlRig struct{ *rig }

func newSetlRig(t *testing.T) *setlRig {
	t.Helper()
	r := newRig(t, withRazorpay, withConfig(sitetest.SettleConfig))
	if err := sitetest.Settlements(r.site); err != nil {
		t.Fatal(err)
	}
	return &setlRig{rig: r}
}
