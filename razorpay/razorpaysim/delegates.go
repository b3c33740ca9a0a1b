package razorpaysim

import "github.com/razorpay-erpnext/razorpay-erpnext/razorpay"

// The Go API of an account that its parts answer: each method is the part's of that name.

// AddAdjustment queues an adjustment for the next settlement and returns its row as the recon
// endpoint will show it before settlement. Like Razorpay's sample row it has no UTR even once
// settled (spec/razorpay.md §3.5: adjustment rows may have no UTR), notes null and no
// credit_type; created_at is now. A lost dispute queues its deduction by itself
// (ResolveDispute). Errors are 400 *razorpay.APIError: Amount 0 without DisputeID, an unknown
// DisputeID ("The id provided does not exist").
func (s *Sim) AddAdjustment(a Adjustment) (razorpay.ReconItem, error) {
	return s.settlements.AddAdjustment(a)
}

// AddTransfer queues a Route transfer of amount (INR paise) out of a captured payment for the
// next settlement: a recon row of type transfer with Debit = amount + fee, the fee 0.25 % of
// the amount plus 18 % GST (Tax) on top (Razorpay's sample row: amount 100000, fee 296 of which
// tax 46, debit 100296; this rule gives 295 and 45), PaymentID set and notes null. Errors are 400
// *razorpay.APIError: unknown payment, payment not captured, amount outside 1..the payment's
// base amount.
func (s *Sim) AddTransfer(paymentID string, amount int64) (razorpay.ReconItem, error) {
	return s.settlements.AddTransfer(paymentID, amount)
}

// SetOnHold puts a payment on hold (hold true) or releases it: a held payment stays out of
// every settlement, and has no recon row, until released; the next settlement after the
// release pays it out (spec/razorpay.md §3.5 on_hold). Settled payments cannot change. Errors
// are 400 *razorpay.APIError: unknown payment, payment already settled.
func (s *Sim) SetOnHold(paymentID string, hold bool) error {
	return s.settlements.SetOnHold(paymentID, hold)
}

// EmitDowntime emits a payment.downtime.started event whose contains entry and payload key
// are the dotted "payment.downtime" (spec/razorpay.md §2.1, checklist item 3).
func (s *Sim) EmitDowntime() { s.hooks.EmitDowntime() }

// CreateDispute opens a dispute (chargeback) on a captured payment and emits
// payment.dispute.created with the payment and dispute entities (spec/razorpay.md §2.2, §3.6,
// checklist item 23), then the events of opt.Then. Zero fields get defaults: id disp_+14 chars,
// amount = the payment's amount (minor units of its currency), currency the payment's, phase
// chargeback, a reason code and description, created_at now and respond_by 10 days later
// (unix s). Status is always open and amount_deducted 0 at creation.
//
// Errors are *razorpay.APIError with status 400: unknown payment id ("The id provided does not
// exist"), payment not captured (or refunded), amount outside 1..payment amount, currency not
// the payment's, a status other than open, an unknown phase, a duplicate id, or a transition in
// opt.Then that ResolveDispute would refuse. Nothing is recorded on error.
func (s *Sim) CreateDispute(d razorpay.Dispute, opt DisputeOptions) (*razorpay.Dispute, error) {
	return s.disputes.CreateDispute(d, opt)
}

// ResolveDispute moves a dispute on and emits the matching webhook with the payment and the
// dispute as they are now (spec/razorpay.md §2.2, checklist item 23). to is one of
// under_review, action_required (status back to open: evidence is wanted), won, lost
// (amount_deducted = amount, and the next settlement carries an adjustment row debiting it
// in INR paise, with dispute_id set) or closed. Delivery follows the dispute's DisputeOptions (Lose,
// Duplicate) and Faults.Ordering.
//
// Errors are *razorpay.APIError with status 400: unknown dispute id ("The id provided does not
// exist"), an unknown target, a dispute already won, lost or closed, or under_review twice in a
// row.
func (s *Sim) ResolveDispute(id, to string) (*razorpay.Dispute, error) {
	return s.disputes.ResolveDispute(id, to)
}

// EnableWebhook re-enables an endpoint that was disabled (spec/razorpay.md §1.8: re-enabling
// is manual): events created from now on are delivered to it again and its failure streak
// starts afresh. Events created while it was disabled are not sent; replay them with
// ReplayEvent. Enabling an enabled endpoint does nothing. Errors: ErrUnknownWebhook.
func (s *Sim) EnableWebhook(id string) error { return s.hooks.EnableWebhook(id) }

// DisableWebhook disables an endpoint as the Dashboard would, without an alert email: nothing
// more is delivered to it, for any event, until EnableWebhook. Errors: ErrUnknownWebhook.
func (s *Sim) DisableWebhook(id string) error { return s.hooks.DisableWebhook(id) }

// CreatePayment adds a payment to the account and emits its webhooks (spec/razorpay.md §1.6,
// checklist items 12–13). Zero fields get defaults: id pay_+14 chars, currency INR, status
// captured, method card, created_at now (unix s), a contact in one of Razorpay's mixed formats
// (contactFormats).
// Status must be authorized, captured, failed or created. An order is created (unless
// opt.NoOrder) or an existing OrderID joined; fee and tax (INR paise, fee includes 18 % GST) are
// set for captured payments unless given; non-INR payments get base_amount in INR paise and
// base_currency INR.
//
// Events: failed → payment.failed; authorized → payment.authorized; captured →
// payment.authorized (an authorized snapshot), payment.captured, order.paid (with an order
// snapshot) and payment_link.paid for link payments, each with its own 14-char event id.
//
// Errors are *razorpay.APIError with status 400: unsupported currency, amount below the minimum
// (INR 100 paise, USD 50 cents), unknown status, duplicate id.
func (s *Sim) CreatePayment(p razorpay.Payment, opt PaymentOptions) (*razorpay.Payment, error) {
	return s.payments.CreatePayment(p, opt)
}

// Capture captures an authorized payment as POST /v1/payments/{id}/capture does
// (spec/razorpay.md §5.2): amount (minor units) must equal the authorized amount and currency
// the payment's. It emits payment.captured (+ order.paid, payment_link.paid). Errors are
// *razorpay.APIError 400: unknown id, not authorized ("This payment has already been
// captured" when captured), amount or currency mismatch.
func (s *Sim) Capture(id string, amount int64, currency string) (*razorpay.Payment, error) {
	return s.payments.Capture(id, amount, currency)
}

// CreateRefund refunds (part of) a captured payment and emits refund.created and the final
// refund event, each carrying the payment snapshot of its moment: cumulative amount_refunded,
// refund_status partial or full, status refunded at 100 % (spec/razorpay.md §3.3). Zero fields
// get defaults: id rfnd_+14 chars, amount = what is left to refund (minor units of the
// payment's currency), speed normal, created_at now. Errors are *razorpay.APIError 400: unknown
// payment id ("The id provided does not exist"), payment not captured, amount above what is
// left, currency different from the payment's.
func (s *Sim) CreateRefund(r razorpay.Refund, opt RefundOptions) (*razorpay.Refund, error) {
	return s.refunds.CreateRefund(r, opt)
}

// ReplayEvent resends a stored event on request, as Razorpay support does (spec/razorpay.md
// §1.9, checklist item 14): one attempt to each endpoint the event went to when it happened
// (or only to the endpoint webhookID when not ""), with the same event id, the same bytes and
// the same signature as the original deliveries, even after a secret rotation. Events lost on
// purpose (PaymentOptions.Lose and the like) can be replayed too. Endpoints disabled now are
// skipped. Age is measured like the retry window: real time since creation, scaled by
// TimeScale; beyond 15 days the replay is refused.
//
// ReplayEvent waits for the attempts (each bounded by DeliveryTimeout) and returns them; they
// are also recorded in State with Replay set. A replay neither changes the event's Delivered
// or Finished flags nor retries. Errors: ErrUnknownEvent, ErrReplayTooOld, ErrUnknownWebhook,
// ErrNothingToReplay, ErrClosed.
func (s *Sim) ReplayEvent(id, webhookID string) ([]Attempt, error) {
	return s.hooks.ReplayEvent(id, webhookID)
}

// SeedPayments adds n payments, the i-th (from 0) made by gen(i), the fast way to fill the
// account for a benchmark (100,000 payments take about a second of CPU and 120 MB of heap,
// against a minute and 600 MB through CreatePayment): each payment is filled,
// validated and given its order (and link) exactly as CreatePayment does, from the
// PaymentOptions fields NoOrder, Receipt, Link, LinkReferenceID and OnHold, but no webhook
// event is made or recorded, so there is nothing to deliver or replay; captured payments wait
// for settlement like any other. A nil gen makes captured INR payments of ₹500.00 created now.
// It returns the ids in order; on an invalid payment it stops and returns the ids added so far
// with an error naming the index and wrapping the *razorpay.APIError.
func (s *Sim) SeedPayments(n int, gen func(i int) (razorpay.Payment, PaymentOptions)) ([]string, error) {
	return s.payments.SeedPayments(n, gen)
}

// Seed adds spec.Count payments through SeedPayments: payment i (from 0) is created at
// From + (To − From)·i/(Count − 1) and carries the patterns expanded for number i+1. Errors as
// SeedPayments, or a 400 *razorpay.APIError for a count below 1 or From after To.
func (s *Sim) Seed(spec SeedSpec) ([]string, error) { return s.payments.Seed(spec) }

// Settle pays out everything waiting, as SettleWith(SettleOptions{}) does.
func (s *Sim) Settle() (*razorpay.Settlement, error) { return s.settlements.Settle() }

// SettleWith makes one settlement of what is waiting (checklist item 21): every captured
// payment not on hold and captured at or before opt.Before (a recon row with Credit =
// base_amount − fee, in INR paise, fee including GST), every processed refund (Debit = the
// refund in INR paise, PaymentID set), every adjustment (AddAdjustment, lost disputes) and
// transfer (AddTransfer). Amount = Σ Credit − Σ Debit − Fees + opt.Discrepancy, exactly; ids
// setl_ + 14 characters; created_at now. With status processed it sends settlement.processed
// through the webhook machinery (retry ladder, duplicates, Faults).
//
// Errors: ErrNothingToSettle, ErrNegativeBalance (nothing changes), or a 400 *razorpay.APIError
// for an unknown opt.Status.
func (s *Sim) SettleWith(opt SettleOptions) (*razorpay.Settlement, error) {
	return s.settlements.SettleWith(opt)
}

// ProcessSettlement moves a created or failed settlement to processed (failed is not final,
// spec/razorpay.md §3.5): a new UTR, its rows settled, settlement.processed sent with the
// delivery options it was made with. Errors: a 400 *razorpay.APIError "The id provided does
// not exist" for an unknown id, ErrAlreadyProcessed.
func (s *Sim) ProcessSettlement(id string) (*razorpay.Settlement, error) {
	return s.settlements.ProcessSettlement(id)
}

// Recon returns the recon rows of one settlement as GET /v1/settlements/recon/combined shows
// them. Errors: a 400 *razorpay.APIError "The id provided does not exist".
func (s *Sim) Recon(settlementID string) ([]razorpay.ReconItem, error) {
	return s.settlements.Recon(settlementID)
}

// RotateWebhookSecret makes secret the signing key of the default endpoint for events created
// from now on; events created earlier keep their signature on every retry and replay
// (spec/razorpay.md §1.3, checklist item 7). It acts on this mode only.
func (s *Sim) RotateWebhookSecret(secret string) { s.hooks.RotateWebhookSecret(secret) }
