package reconcile_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// intakeConfig is a valid configuration with a webhook secret and an unreachable ERPNext.
func intakeConfig() connector.Config {
	cfg := config.Defaults()
	cfg.Razorpay.WebhookSecrets = []string{"whsec-reconcile"}
	cfg.Razorpay.AccountID = "acc_T3stAcc0unt001"
	cfg.ERPNext.URL = "http://127.0.0.1:1"
	cfg.ERPNext.APIKey, cfg.ERPNext.APISecret = "k", "s"
	cfg.Mapping.Company = "Example Company"
	return cfg
}

func sqliteStore(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), "sqlite", filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func total(t *testing.T, s connector.Store) int {
	t.Helper()
	c, err := s.CountByStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}
