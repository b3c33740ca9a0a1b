// Package razorpaysim is an in-memory Razorpay account for tests, the demo and local runs: the
// REST API subset the connector reconciles with (spec/razorpay.md §5) and a webhook sender that
// behaves like Razorpay's (§1): compact signed bodies, the documented headers, the observed
// retry ladder compressed by a time scale, byte-identical retries, duplicates and reordering on
// purpose, several events per payment, snapshots, refunds, settlements, disputes and fault
// injection. Each mode has any number of webhook endpoints (Options.Webhooks) with their own
// secrets and event filters; every event goes, with one event id, to each subscribed endpoint,
// whose retry ladder runs on its own. An endpoint whose deliveries keep failing for 24 h
// (scaled) is disabled with an alert email in State until EnableWebhook (or POST
// /__sim/webhooks/{id}/enable); ReplayEvent resends a stored event for 15 days (scaled). With
// Options.LiveKeyID set, a separate live-mode account (Live) holds disjoint data reached only
// with the live keys.
//
// Use New, drive it with CreatePayment, CreateRefund, Capture, CreateDispute and
// ResolveDispute, settle with Settle, SettleWith, ProcessSettlement, AddAdjustment,
// AddTransfer and SetOnHold (or Options.SettleEvery), fill it fast with SeedPayments or Seed
// (or the control API documented on Sim.ServeHTTP), read everything back with State and
// Recon, and Close it. Webhooks are only ever sent to loopback addresses.
//
// Lists (payments, refunds, settlements, recon rows) are served from indexes ordered by
// created_at, so a page costs O(log n + page size) at any number of payments.
//
// Each item of the "Simulator checklist" in spec/razorpay.md has a test named after it
// (TestItem01Signing, …). It imports only the razorpay package of this module.
package razorpaysim
