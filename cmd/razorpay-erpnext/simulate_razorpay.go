package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// razorpaySimFlags are the flags of "simulate razorpay".
type razorpaySimFlags struct {
	listen, keyID, keySecret, webhookURL, secret, account string
	scale, errorRate                                      float64
	seed                                                  int64
	listLag, settleEvery, settleDelay                     time.Duration
	seedPayments                                          int
	seedInvoice                                           string
	liveKeyID, liveKeySecret, liveWebhookURL, liveSecret  string
	endpoints, liveEndpoints                              []string
}

func (m *Main) simulateRazorpayCmd() *cobra.Command {
	var fl razorpaySimFlags
	c := &cobra.Command{
		Use:   "razorpay --listen ADDR --key-id K --key-secret S [--webhook-url URL --secret S] [--time-scale F] [faults...]",
		Short: "Serve the Razorpay simulator: the REST API subset, signed webhooks and the /__sim/ control API",
		Long: `Serve the Razorpay simulator (razorpay/razorpaysim): GET /v1/payments, /v1/refunds, /v1/orders …
with HTTP Basic auth, and a webhook sender that posts signed events to --webhook-url (loopback
only). Drive it with the control API: POST /__sim/payments creates a payment from a JSON payment
entity ("deliver": false loses all its webhooks, for reconcile), POST /__sim/refunds likewise,
GET /__sim/state returns every entity and every delivery attempt with its HTTP status.
POST /__sim/settlements settles now (settlement.processed, recon rows under
GET /v1/settlements/recon/combined); --settle-every runs a schedule. --seed-payments fills the
account with captured payments, without webhooks, for reconcile at scale.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := fl.options()
			if err != nil {
				return err
			}
			sim := razorpaysim.New(opt)
			defer sim.Close()
			if fl.seedPayments > 0 {
				if _, err := sim.Seed(razorpaysim.SeedSpec{Count: fl.seedPayments, Invoice: fl.seedInvoice, Receipt: fl.seedInvoice}); err != nil {
					return usageErr("--seed-payments: %v", err)
				}
			}
			l, err := net.Listen("tcp", fl.listen)
			if err != nil {
				return err
			}
			fmt.Fprintf(m.Stdout, "Razorpay simulator on http://%s (account %s)\n", l.Addr(), sim.AccountID())
			return serveUntilDone(cmd.Context(), l, sim)
		},
	}
	fl.bind(c.Flags())
	return c
}

// serveUntilDone serves h on l until ctx ends.
func serveUntilDone(ctx context.Context, l net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// options checks the flags and returns the simulator's options; a usage error names the flags
// that do not fit.
func (fl *razorpaySimFlags) options() (razorpaysim.Options, error) {
	if fl.listen == "" || fl.keyID == "" || fl.keySecret == "" {
		return razorpaysim.Options{}, usageErr("--listen, --key-id and --key-secret are required")
	}
	if fl.webhookURL != "" && fl.secret == "" {
		return razorpaysim.Options{}, usageErr("--webhook-url needs --secret (the webhook secret the connector verifies)")
	}
	if fl.scale < 0 || fl.errorRate < 0 || fl.errorRate > 1 {
		return razorpaysim.Options{}, usageErr("--time-scale must be positive and --error-rate within 0..1")
	}
	if fl.seedPayments < 0 || fl.seedPayments > 10_000_000 || fl.settleEvery < 0 || fl.settleDelay < 0 {
		return razorpaysim.Options{}, usageErr("--seed-payments must be within 0..10000000, --settle-every and --settle-delay not negative")
	}
	if (fl.liveKeyID == "") != (fl.liveKeySecret == "") {
		return razorpaysim.Options{}, usageErr("--live-key-id and --live-key-secret go together")
	}
	if fl.liveWebhookURL != "" && (fl.liveSecret == "" || fl.liveKeyID == "") {
		return razorpaysim.Options{}, usageErr("--live-webhook-url needs --live-secret and --live-key-id")
	}
	if len(fl.liveEndpoints) > 0 && fl.liveKeyID == "" {
		return razorpaysim.Options{}, usageErr("--live-webhook-endpoint needs --live-key-id")
	}
	hooks, err := parseWebhookEndpoints(fl.endpoints)
	if err != nil {
		return razorpaysim.Options{}, err
	}
	liveHooks, err := parseWebhookEndpoints(fl.liveEndpoints)
	if err != nil {
		return razorpaysim.Options{}, err
	}
	return razorpaysim.Options{
		KeyID: fl.keyID, KeySecret: fl.keySecret, WebhookURL: fl.webhookURL, WebhookSecret: fl.secret,
		Webhooks: hooks, AccountID: fl.account, TimeScale: fl.scale, Seed: fl.seed,
		LiveKeyID: fl.liveKeyID, LiveKeySecret: fl.liveKeySecret, LiveWebhookURL: fl.liveWebhookURL,
		LiveWebhookSecret: fl.liveSecret, LiveWebhooks: liveHooks,
		Faults:      razorpaysim.Faults{ErrorRate: fl.errorRate, ListLag: fl.listLag},
		SettleEvery: fl.settleEvery, SettleDelay: fl.settleDelay,
	}, nil
}

func (fl *razorpaySimFlags) bind(f *pflag.FlagSet) {
	f.StringVar(&fl.listen, "listen", "", "address to listen on, e.g. 127.0.0.1:8001")
	f.StringVar(&fl.keyID, "key-id", "", "API key id the simulated account accepts (razorpay.key_id)")
	f.StringVar(&fl.keySecret, "key-secret", "", "API key secret the simulated account accepts (razorpay.key_secret)")
	f.StringVar(&fl.webhookURL, "webhook-url", "", "where to POST webhooks, e.g. http://127.0.0.1:8080/webhooks/razorpay (loopback only)")
	f.StringVar(&fl.secret, "secret", "", "webhook secret that signs every body (razorpay.webhook_secrets)")
	f.StringVar(&fl.account, "account-id", "", "account_id of every envelope (razorpay.account_id); default random")
	f.Float64Var(&fl.scale, "time-scale", 1, "compress the ~24 h webhook retry ladder: 0.001 runs it in ~82 s")
	f.Int64Var(&fl.seed, "seed", 0, "seed for ids, shuffles and injected errors (the same seed, the same ids); 0: random per start")
	f.Float64Var(&fl.errorRate, "error-rate", 0, "fault: chance (0..1) that an API request is answered 500, 502 or 504")
	f.DurationVar(&fl.listLag, "list-lag", 0, "fault: payments, refunds and settlements younger than this are missing from the lists")
	f.IntVar(&fl.seedPayments, "seed-payments", 0, "start with N captured INR payments (₹500.00) spread over the last 24 h, without webhooks")
	f.StringVar(&fl.seedInvoice, "seed-invoice", "", "notes.invoice and order receipt of seeded payments; {n} is the payment's number, {n:5} zero-padded (e.g. ACC-SINV-2026-{n:5})")
	f.DurationVar(&fl.settleEvery, "settle-every", 0, "settle on a schedule at this interval (compressed by --time-scale); 0: only POST /__sim/settlements")
	f.DurationVar(&fl.settleDelay, "settle-delay", 0, "scheduled settlements pay out payments captured at least this long ago (e.g. 48h for T+2)")
	f.StringArrayVar(&fl.endpoints, "webhook-endpoint", nil,
		"another test-mode webhook endpoint (repeatable): URL[,secret=S][,id=ID][,events=payment.captured|refund.processed][,alert=EMAIL]")
	f.StringVar(&fl.liveKeyID, "live-key-id", "", "live-mode API key id: a second account with disjoint data (drive it under /__sim/live/)")
	f.StringVar(&fl.liveKeySecret, "live-key-secret", "", "live-mode API key secret")
	f.StringVar(&fl.liveWebhookURL, "live-webhook-url", "", "where live-mode webhooks are POSTed (loopback only)")
	f.StringVar(&fl.liveSecret, "live-secret", "", "webhook secret of live-mode webhooks")
	f.StringArrayVar(&fl.liveEndpoints, "live-webhook-endpoint", nil, "another live-mode webhook endpoint, as --webhook-endpoint")
}

// parseWebhookEndpoints parses --webhook-endpoint values:
// URL[,secret=S][,id=ID][,events=a|b][,alert=EMAIL].
func parseWebhookEndpoints(vals []string) ([]razorpaysim.Webhook, error) {
	var out []razorpaysim.Webhook
	for _, v := range vals {
		parts := strings.Split(v, ",")
		w := razorpaysim.Webhook{URL: parts[0]}
		if w.URL == "" {
			return nil, usageErr("--webhook-endpoint %s: the URL comes first", v)
		}
		for _, p := range parts[1:] {
			k, val, ok := strings.Cut(p, "=")
			switch {
			case ok && k == "secret":
				w.Secret = val
			case ok && k == "id":
				w.ID = val
			case ok && k == "events":
				w.Events = strings.Split(val, "|")
			case ok && k == "alert":
				w.AlertEmail = val
			default:
				return nil, usageErr("--webhook-endpoint %s: unknown option %s", v, p)
			}
		}
		out = append(out, w)
	}
	return out, nil
}
