package razorpaysim

import (
	"errors"
	"math"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// SettleOptions shape one settlement made by SettleWith (spec/razorpay.md §3.5, checklist
// item 21).
type SettleOptions struct {
	// Before settles only payments captured at or before this time (simulator clock); zero
	// settles every captured payment. Refunds, adjustments and transfers are always included.
	Before time.Time
	// Status is where the settlement stops: "processed" (default: UTR set, rows settled,
	// settlement.processed sent), "created" (no UTR yet) or "failed" (the transfer failed; a
	// UTR of the failed attempt). Created and failed are not final: ProcessSettlement, or the
	// next scheduled tick, processes them with a new UTR.
	Status string
	// Instant charges the settlement itself a fee, as an instant (on-demand) settlement does:
	// Fees = 0.25 % of the rows' net with 18 % GST inside, Tax = that GST, both deducted from
	// Amount (razorpay-go testdata/fake_instant_settlement.json).
	Instant bool
	// Discrepancy is added to Amount after the rows are summed, in paise: a settlement whose
	// rows do not add up to its amount (a test hook the connector must catch).
	Discrepancy int64
	// Lose records settlement.processed but delivers it nowhere; Duplicate delivers it once
	// more after a 2xx.
	Lose, Duplicate bool
}

// Errors of SettleWith and ProcessSettlement.
var (
	// ErrNothingToSettle: no captured payment (released and past the cut-off), processed
	// refund, adjustment or transfer is waiting.
	ErrNothingToSettle = errors.New("razorpaysim: nothing to settle")
	// ErrNegativeBalance: what is waiting adds up to zero or less; nothing is settled and
	// everything keeps waiting, as Razorpay carries a negative balance forward.
	ErrNegativeBalance = errors.New("razorpaysim: refunds and deductions exceed what is due; nothing settled")
	// ErrAlreadyProcessed: ProcessSettlement of a settlement that is processed already.
	ErrAlreadyProcessed = errors.New("razorpaysim: settlement already processed")
)

// settleRec is a settlement with its recon rows; added is the simulator-clock time it was
// made (unix nanoseconds, for list lag); lose and dup are the delivery options its
// settlement.processed will use.
type settleRec struct {
	st        razorpay.Settlement
	rows      []razorpay.ReconItem
	seq       int64
	added     int64
	lose, dup bool
}

// due is what the next settlement pays out or deducts; the caller holds s.mu for every use.
type due struct {
	payments []*payRec            // captured, not settled yet (held ones wait here), capture order
	refunds  []*refundRec         // processed, not settled yet
	extras   []razorpay.ReconItem // adjustments and transfers, without their settlement fields
}

// markCaptured puts a just-captured payment (capturedAt unix seconds) in the queue of the
// next settlement; the caller holds s.mu.
func (s *Sim) markCaptured(rec *payRec, capturedAt int64) {
	rec.capturedAt = capturedAt
	s.due.payments = append(s.due.payments, rec)
}

// Settle pays out everything waiting, as SettleWith(SettleOptions{}) does.
func (s *Sim) Settle() (*razorpay.Settlement, error) { return s.SettleWith(SettleOptions{}) }

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
	s.mu.Lock()
	defer s.mu.Unlock()
	cutoff := int64(math.MaxInt64)
	if !opt.Before.IsZero() {
		cutoff = opt.Before.Unix()
	}
	rec, err := s.settleLocked(opt, cutoff)
	if err != nil {
		return nil, err
	}
	out := rec.st
	return &out, nil
}

// settleLocked builds the settlement of everything due up to cutoff (unix seconds of
// capture), then records it; nothing changes on error. The caller holds s.mu.
func (s *Sim) settleLocked(opt SettleOptions, cutoff int64) (*settleRec, error) {
	switch opt.Status {
	case "":
		opt.Status = razorpay.SettlementProcessed
	case razorpay.SettlementProcessed, razorpay.SettlementCreated, razorpay.SettlementFailed:
	default:
		return nil, badRequest("Invalid settlement status: "+opt.Status, "status")
	}
	now := s.now()
	rec := &settleRec{
		st: razorpay.Settlement{
			ID:     s.freshID("setl_", func(id string) bool { return s.settlements[id] != nil }),
			Entity: "settlement", Status: razorpay.SettlementCreated, CreatedAt: now.Unix(),
		},
		lose: opt.Lose, dup: opt.Duplicate,
	}
	picked, waiting := s.dueRows(rec, cutoff)
	if len(rec.rows) == 0 {
		return nil, ErrNothingToSettle
	}
	var net int64
	for i := range rec.rows {
		net += rec.rows[i].Credit - rec.rows[i].Debit
	}
	if net <= 0 {
		return nil, ErrNegativeBalance
	}
	if opt.Instant {
		rec.st.Fees = (net*25 + 5000) / 10000
		rec.st.Tax = (rec.st.Fees*18 + 59) / 118
	}
	rec.st.Amount = net - rec.st.Fees + opt.Discrepancy
	for _, pr := range picked {
		pr.settled = true
	}
	for _, rr := range s.due.refunds {
		rr.settled = true
	}
	s.due = due{payments: waiting}
	rec.seq, rec.added = s.nextSeq(), now.UnixNano()
	s.settlements[rec.st.ID] = rec
	s.settleList.add(rec)
	switch opt.Status {
	case razorpay.SettlementProcessed:
		s.process(rec)
	case razorpay.SettlementFailed:
		rec.st.Status, rec.st.UTR = razorpay.SettlementFailed, s.newUTR(now)
	}
	return rec, nil
}

// dueRows puts in rec the rows of what is due: payments not held and captured at or before
// cutoff (picked; the others keep waiting), every processed refund, adjustment and transfer.
// It changes nothing else. The caller holds s.mu.
func (s *Sim) dueRows(rec *settleRec, cutoff int64) (picked, waiting []*payRec) {
	for _, pr := range s.due.payments {
		if pr.held || pr.capturedAt > cutoff {
			waiting = append(waiting, pr)
			continue
		}
		picked = append(picked, pr)
		rec.rows = append(rec.rows, s.paymentRow(pr))
	}
	for _, rr := range s.due.refunds {
		rec.rows = append(rec.rows, s.refundRow(rr))
	}
	rec.rows = append(rec.rows, s.due.extras...)
	for i := range rec.rows {
		rec.rows[i].SettlementID = rec.st.ID
	}
	return picked, waiting
}

// newUTR returns a bank reference like the sample's (HDFCN + IST date + 6 digits); the caller
// holds s.mu.
func (s *Sim) newUTR(now time.Time) string {
	return "HDFCN" + now.In(ist).Format("20060102") + digits(s, 6)
}

// process moves a created or failed settlement to processed: a new UTR, every row settled at
// now with that UTR (adjustment rows carry none, as in Razorpay's sample), and
// settlement.processed dispatched. The caller holds s.mu.
func (s *Sim) process(rec *settleRec) {
	now := s.now()
	rec.st.Status, rec.st.UTR = razorpay.SettlementProcessed, s.newUTR(now)
	for i := range rec.rows {
		r := &rec.rows[i]
		r.Settled, r.SettledAt = true, now.Unix()
		if r.Type != razorpay.ReconAdjustment {
			r.SettlementUTR = rec.st.UTR
		}
	}
	payload := obj{{"settlement", wrap(renderSettlement(&rec.st))}}
	ev := s.newEvent(razorpay.EventSettlementProcessed, []string{"settlement"}, payload, now.Unix(), false)
	s.dispatch([]*event{ev}, s.ordering(""), rec.dup, rec.lose)
}

// ProcessSettlement moves a created or failed settlement to processed (failed is not final,
// spec/razorpay.md §3.5): a new UTR, its rows settled, settlement.processed sent with the
// delivery options it was made with. Errors: a 400 *razorpay.APIError "The id provided does
// not exist" for an unknown id, ErrAlreadyProcessed.
func (s *Sim) ProcessSettlement(id string) (*razorpay.Settlement, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.settlements[id]
	if !ok {
		return nil, notFound()
	}
	if rec.st.Status == razorpay.SettlementProcessed {
		return nil, ErrAlreadyProcessed
	}
	s.process(rec)
	out := rec.st
	return &out, nil
}

// Recon returns the recon rows of one settlement as GET /v1/settlements/recon/combined shows
// them. Errors: a 400 *razorpay.APIError "The id provided does not exist".
func (s *Sim) Recon(settlementID string) ([]razorpay.ReconItem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.settlements[settlementID]
	if !ok {
		return nil, notFound()
	}
	return append([]razorpay.ReconItem(nil), rec.rows...), nil
}

// settleLoop runs the settlement schedule at a fixed (scaled) interval until Close.
func (s *Sim) settleLoop(every time.Duration) {
	defer s.wg.Done()
	if every <= 0 {
		every = time.Millisecond
	}
	for s.sleep(every) {
		s.settleTick()
	}
}

// settleTick is one scheduled run: settlements left created or failed are processed, then
// what is due before the cut-off (Options.SettleDelay) is settled, failed while
// Faults.FailSettlements lasts.
func (s *Sim) settleTick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rec := range s.settleList.byCreated.items {
		if rec.st.Status != razorpay.SettlementProcessed {
			s.process(rec)
		}
	}
	opt := SettleOptions{}
	if s.faults.FailSettlements > 0 {
		opt.Status = razorpay.SettlementFailed
	}
	if _, err := s.settleLocked(opt, s.now().Add(-s.opt.SettleDelay).Unix()); err == nil && opt.Status != "" {
		s.faults.FailSettlements--
	}
}
