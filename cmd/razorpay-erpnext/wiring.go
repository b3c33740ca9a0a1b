package main

import (
	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/intake"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/operator"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/reconcile"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// operatorOf is what a person does to the inbox, on conn's store and its ERPNext client edge
// (every call counted, a refused credential pauses the workers), waking conn's idle workers
// after a replay.
func operatorOf(conn *connector.Connector) *operator.Operator {
	p := conn.Ports()
	return operator.New(operator.Deps{Store: p.Store, ERP: p.ERP, Now: p.Now, Wake: conn.Wake})
}

// retentionOf purges db's raw bodies older than retention.raw_bodies, counted in conn's metrics.
func retentionOf(conn *connector.Connector, db *store.DB, cfg connector.Config, log zerolog.Logger) operator.Retention {
	return operator.Retention{Store: db, Keep: cfg.Retention.RawBodies.D(), Now: conn.Ports().Now, Log: log, Purged: conn.RecordPurge}
}

// intakeOf receives webhooks into conn's store with the webhook secrets and account of its
// configuration, counted in conn's metrics, waking conn's workers.
func intakeOf(conn *connector.Connector) *intake.Intake {
	p := conn.Ports()
	return intake.New(intake.Deps{Secrets: p.Config.Razorpay.WebhookSecrets, AccountID: p.Config.Razorpay.AccountID,
		MaxInFlight: p.Config.Server.MaxInFlight, Store: p.Store, Now: p.Now, Log: p.Log, Wake: conn.Wake, Counters: conn.WebhookCounters()})
}

// reconcilerOf is a reconcile run's dependencies: conn's store and client edge, the reconcile
// and settlement sections of its configuration, its clock, and the worker mechanisms of conn
// (lock rows, owners, drain, wake, backoff, metrics) and its settlement report.
func reconcilerOf(conn *connector.Connector) reconcile.Deps {
	p := conn.Ports()
	return reconcile.Deps{AccountID: p.Config.Razorpay.AccountID, ModeOfPayment: p.Config.Mapping.ModeOfPayment,
		Reconcile: p.Config.Reconcile, Settlements: p.Config.Settlements,
		Store: p.Store, ERP: p.ERP, Razorpay: p.Razorpay, Settlement: conn, Now: p.Now, Location: p.Location, Log: p.Log,
		Owner: conn.Owner, HoldLock: conn.HoldLock, Drain: conn.DrainEvents, Wake: conn.Wake, Backoff: conn.Backoff,
		ObserveRun: conn.ObserveReconcile, ObserveSettlements: conn.ObserveSettlements}
}
