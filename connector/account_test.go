package connector_test

import (
	"slices"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// A single-account configuration builds the one Account the jobs read: whose money it is, the
// site and the sections of it a job needs.
func TestAccountOfASingleAccountConfig(t *testing.T) {
	var cfg connector.Config
	cfg.Razorpay.AccountID = "acc_Main"
	cfg.Razorpay.AcceptAccounts = []string{"acc_Other"}
	cfg.Razorpay.WebhookSecrets = []string{"whsec"}
	cfg.ERPNext.URL = "https://erp.example"
	cfg.ERPNext.NameEntriesByPaymentID = true
	cfg.Mapping.Company = "Acme"
	cfg.Mapping.Timezone = "Asia/Kolkata"
	cfg.Settlements.BankAccount = "HDFC - A"
	cfg.Reconcile.Since = "2026-01-01"
	erp := newFakeERP()
	a, err := connector.AccountOf(cfg, erp, nil)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case a.ID != "acc_Main" || !slices.Equal(a.Accepts, []string{"acc_Other"}) || !slices.Equal(a.WebhookSecrets, []string{"whsec"}):
		t.Errorf("Razorpay account: %q accepts %v secrets %d", a.ID, a.Accepts, len(a.WebhookSecrets))
	case a.Site != "https://erp.example" || a.ERP != erp || a.Razorpay != nil || !a.NameEntriesByPaymentID:
		t.Errorf("site %q, clients %v %v, name by id %v", a.Site, a.ERP, a.Razorpay, a.NameEntriesByPaymentID)
	case a.Company() != "Acme" || a.Settlements.BankAccount != "HDFC - A" || a.Reconcile.Since != "2026-01-01":
		t.Errorf("company %q, settlements %+v, reconcile %+v", a.Company(), a.Settlements, a.Reconcile)
	case a.Location == nil || a.Location.String() != "Asia/Kolkata":
		t.Errorf("location %v, want Asia/Kolkata", a.Location)
	}
	if day := time.Date(2026, 1, 1, 0, 0, 0, 0, a.Location); day.UTC().Hour() != 18 {
		t.Errorf("midnight in the account's zone is %s UTC, want the day before at 18:30", day.UTC())
	}
}

// A time zone that is not one fails the Account, as it fails New.
func TestAccountOfAnUnknownZoneFails(t *testing.T) {
	var cfg connector.Config
	cfg.Mapping.Timezone = "Mars/Olympus"
	if _, err := connector.AccountOf(cfg, nil, nil); err == nil {
		t.Fatal("AccountOf with mapping.timezone Mars/Olympus: no error")
	}
}
