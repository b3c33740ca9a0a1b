package sitetest

import (
	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/intake"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/operator"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
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

// Reconcile is a reconcile run's dependencies on c's store, client edge, configuration, clock
// and worker mechanisms: as cmd wires it.
func Reconcile(c *connector.Connector) reconcile.Deps {
	p := c.Ports()
	return reconcile.Deps{AccountID: p.Config.Razorpay.AccountID, ModeOfPayment: p.Config.Mapping.ModeOfPayment,
		Reconcile: p.Config.Reconcile, Settlements: p.Config.Settlements,
		Store: p.Store, ERP: p.ERP, Razorpay: p.Razorpay, Settlement: c, Now: p.Now, Location: p.Location, Log: p.Log,
		Owner: c.Owner, HoldLock: c.HoldLock, Drain: c.DrainEvents, Wake: c.Wake, Backoff: c.Backoff,
		ObserveRun: c.ObserveReconcile, ObserveSettlements: c.ObserveSettlements}
}
