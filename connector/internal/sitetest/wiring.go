package sitetest

import (
	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/intake"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/operator"
)

// Intake receives webhooks into c's store with the webhook secrets and account of c's
// configuration, counted in c's metrics, waking c's workers: as cmd wires it.
func Intake(c *connector.Connector) *intake.Intake {
	p := c.Ports()
	return intake.New(intake.Deps{Secrets: p.Config.Razorpay.WebhookSecrets, AccountID: p.Config.Razorpay.AccountID,
		MaxInFlight: p.Config.Server.MaxInFlight, Store: p.Store, Now: p.Now, Log: p.Log, Wake: c.Wake, Counters: c.WebhookCounters()})
}

// Operator is the operator actions on c's store and ERPNext client edge, waking c's workers
// after a replay: as cmd wires it.
func Operator(c *connector.Connector) *operator.Operator {
	p := c.Ports()
	return operator.New(operator.Deps{Store: p.Store, ERP: p.ERP, Now: p.Now, Wake: c.Wake})
}
