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
func (stl *settlements) markCaptured(rec *payRec, capturedAt int64) {
	rec.capturedAt = capturedAt
	stl.st.due.payments = append(stl.st.due.payments, rec)
}

// Settle is Sim.Settle.
func (stl *settlements) Settle() (*razorpay.Settlement, error) {
	return stl.SettleWith(SettleOptions{})
}

// SettleWith is Sim.SettleWith.
func (stl *settlements) SettleWith(opt SettleOptions) (*razorpay.Settlement, error) {
	stl.st.mu.Lock()
	defer stl.st.mu.Unlock()
	cutoff := int64(math.MaxInt64)
	if !opt.Before.IsZero() {
		cutoff = opt.Before.Unix()
	}
	rec, err := stl.settleLocked(opt, cutoff)
	if err != nil {
		return nil, err
	}
	out := rec.st
	return &out, nil
}

// settleLocked builds the settlement of everything due up to cutoff (unix seconds of
// capture), then records it; nothing changes on error. The caller holds s.mu.
func (stl *settlements) settleLocked(opt SettleOptions, cutoff int64) (*settleRec, error) {
	switch opt.Status {
	case "":
		opt.Status = razorpay.SettlementProcessed
	case razorpay.SettlementProcessed, razorpay.SettlementCreated, razorpay.SettlementFailed:
	default:
		return nil, badRequest("Invalid settlement status: "+opt.Status, "status")
	}
	now := stl.now()
	rec := &settleRec{
		st: razorpay.Settlement{
			ID:     stl.st.freshID("setl_", func(id string) bool { return stl.st.settlements[id] != nil }),
			Entity: "settlement", Status: razorpay.SettlementCreated, CreatedAt: now.Unix(),
		},
		lose: opt.Lose, dup: opt.Duplicate,
	}
	picked, waiting := stl.dueRows(rec, cutoff)
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
	for _, rr := range stl.st.due.refunds {
		rr.settled = true
	}
	stl.st.due = due{payments: waiting}
	rec.seq, rec.added = stl.st.nextSeq(), now.UnixNano()
	stl.st.settlements[rec.st.ID] = rec
	stl.st.settleList.add(rec)
	switch opt.Status {
	case razorpay.SettlementProcessed:
		stl.process(rec)
	case razorpay.SettlementFailed:
		rec.st.Status, rec.st.UTR = razorpay.SettlementFailed, stl.newUTR(now)
	}
	return rec, nil
}

// dueRows puts in rec the rows of what is due: payments not held and captured at or before
// cutoff (picked; the others keep waiting), every processed refund, adjustment and transfer.
// It changes nothing else. The caller holds s.mu.
func (stl *settlements) dueRows(rec *settleRec, cutoff int64) (picked, waiting []*payRec) {
	for _, pr := range stl.st.due.payments {
		if pr.held || pr.capturedAt > cutoff {
			waiting = append(waiting, pr)
			continue
		}
		picked = append(picked, pr)
		rec.rows = append(rec.rows, stl.paymentRow(pr))
	}
	for _, rr := range stl.st.due.refunds {
		rec.rows = append(rec.rows, stl.refundRow(rr))
	}
	rec.rows = append(rec.rows, stl.st.due.extras...)
	for i := range rec.rows {
		rec.rows[i].SettlementID = rec.st.ID
	}
	return picked, waiting
}

// newUTR returns a bank reference like the sample's (HDFCN + IST date + 6 digits); the caller
// holds s.mu.
func (stl *settlements) newUTR(now time.Time) string {
	return "HDFCN" + now.In(ist).Format("20060102") + digits(stl.st, 6)
}

// process moves a created or failed settlement to processed: a new UTR, every row settled at
// now with that UTR (adjustment rows carry none, as in Razorpay's sample), and
// settlement.processed dispatched. The caller holds s.mu.
func (stl *settlements) process(rec *settleRec) {
	now := stl.now()
	rec.st.Status, rec.st.UTR = razorpay.SettlementProcessed, stl.newUTR(now)
	for i := range rec.rows {
		r := &rec.rows[i]
		r.Settled, r.SettledAt = true, now.Unix()
		if r.Type != razorpay.ReconAdjustment {
			r.SettlementUTR = rec.st.UTR
		}
	}
	payload := obj{{"settlement", wrap(renderSettlement(&rec.st))}}
	ev := stl.hooks.newEvent(razorpay.EventSettlementProcessed, []string{"settlement"}, payload, now.Unix(), false)
	stl.hooks.dispatch([]*event{ev}, stl.hooks.ordering(""), rec.dup, rec.lose)
}

// ProcessSettlement is Sim.ProcessSettlement.
func (stl *settlements) ProcessSettlement(id string) (*razorpay.Settlement, error) {
	stl.st.mu.Lock()
	defer stl.st.mu.Unlock()
	rec, ok := stl.st.settlements[id]
	if !ok {
		return nil, notFound()
	}
	if rec.st.Status == razorpay.SettlementProcessed {
		return nil, ErrAlreadyProcessed
	}
	stl.process(rec)
	out := rec.st
	return &out, nil
}

// Recon is Sim.Recon.
func (stl *settlements) Recon(settlementID string) ([]razorpay.ReconItem, error) {
	stl.st.mu.Lock()
	defer stl.st.mu.Unlock()
	rec, ok := stl.st.settlements[settlementID]
	if !ok {
		return nil, notFound()
	}
	return append([]razorpay.ReconItem(nil), rec.rows...), nil
}

// settleLoop runs the settlement schedule at a fixed (scaled) interval until Close.
func (stl *settlements) settleLoop(every time.Duration) {
	defer stl.life.wg.Done()
	if every <= 0 {
		every = time.Millisecond
	}
	for stl.life.sleep(every) {
		stl.settleTick()
	}
}

// settleTick is one scheduled run: settlements left created or failed are processed, then
// what is due before the cut-off (Options.SettleDelay) is settled, failed while
// Faults.FailSettlements lasts.
func (stl *settlements) settleTick() {
	stl.st.mu.Lock()
	defer stl.st.mu.Unlock()
	for _, rec := range stl.st.settleList.byCreated.items {
		if rec.st.Status != razorpay.SettlementProcessed {
			stl.process(rec)
		}
	}
	opt := SettleOptions{}
	if stl.st.faults.FailSettlements > 0 {
		opt.Status = razorpay.SettlementFailed
	}
	if _, err := stl.settleLocked(opt, stl.now().Add(-stl.opt.SettleDelay).Unix()); err == nil && opt.Status != "" {
		stl.st.faults.FailSettlements--
	}
}
