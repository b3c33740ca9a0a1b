package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

func (m *Main) simulateRazorpayCmd() *cobra.Command {
	var (
		listen, keyID, keySecret, webhookURL, secret, account string
		scale, errorRate                                      float64
		seed                                                  int64
		listLag                                               time.Duration
	)
	c := &cobra.Command{
		Use:   "razorpay --listen ADDR --key-id K --key-secret S [--webhook-url URL --secret S] [--time-scale F] [faults...]",
		Short: "Serve the Razorpay simulator: the REST API subset, signed webhooks and the /__sim/ control API",
		Long: `Serve the Razorpay simulator (razorpay/razorpaysim): GET /v1/payments, /v1/refunds, /v1/orders …
with HTTP Basic auth, and a webhook sender that posts signed events to --webhook-url (loopback
only). Drive it with the control API: POST /__sim/payments creates a payment from a JSON payment
entity ("deliver": false loses all its webhooks, for reconcile), POST /__sim/refunds likewise,
GET /__sim/state returns every entity and every delivery attempt with its HTTP status.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if listen == "" || keyID == "" || keySecret == "" {
				return usageErr("--listen, --key-id and --key-secret are required")
			}
			if webhookURL != "" && secret == "" {
				return usageErr("--webhook-url needs --secret (the webhook secret the connector verifies)")
			}
			if scale < 0 || errorRate < 0 || errorRate > 1 {
				return usageErr("--time-scale must be positive and --error-rate within 0..1")
			}
			sim := razorpaysim.New(razorpaysim.Options{
				KeyID: keyID, KeySecret: keySecret, WebhookURL: webhookURL, WebhookSecret: secret,
				AccountID: account, TimeScale: scale, Seed: seed,
				Faults: razorpaysim.Faults{ErrorRate: errorRate, ListLag: listLag},
			})
			defer sim.Close()
			l, err := net.Listen("tcp", listen)
			if err != nil {
				return err
			}
			srv := &http.Server{Handler: sim, ReadHeaderTimeout: 5 * time.Second}
			fmt.Fprintf(m.Stdout, "Razorpay simulator on http://%s (account %s)\n", l.Addr(), sim.AccountID())
			go func() {
				<-cmd.Context().Done()
				srv.Close()
			}()
			if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&listen, "listen", "", "address to listen on, e.g. 127.0.0.1:8001")
	f.StringVar(&keyID, "key-id", "", "API key id the simulated account accepts (razorpay.key_id)")
	f.StringVar(&keySecret, "key-secret", "", "API key secret the simulated account accepts (razorpay.key_secret)")
	f.StringVar(&webhookURL, "webhook-url", "", "where to POST webhooks, e.g. http://127.0.0.1:8080/webhooks/razorpay (loopback only)")
	f.StringVar(&secret, "secret", "", "webhook secret that signs every body (razorpay.webhook_secrets)")
	f.StringVar(&account, "account-id", "", "account_id of every envelope (razorpay.account_id); default random")
	f.Float64Var(&scale, "time-scale", 1, "compress the ~24 h webhook retry ladder: 0.001 runs it in ~82 s")
	f.Int64Var(&seed, "seed", 0, "seed for ids, shuffles and injected errors")
	f.Float64Var(&errorRate, "error-rate", 0, "fault: chance (0..1) that an API request is answered 500, 502 or 504")
	f.DurationVar(&listLag, "list-lag", 0, "fault: payments and refunds younger than this are missing from the lists")
	return c
}
