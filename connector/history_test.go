package connector_test

import (
	"context"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/operator"
)

// A dismissal, a replay and a rebook are recorded with who did them; the attempts made before
// each replay are kept, so the total counts the run that parked the event.
func TestActionsAreRecordedWithTheAttemptsBeforeThem(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.deliver("H1", captured(t, "pay_T3stHist000001", 50000, "ACC-SINV-2026-00001", nil))
	r.work()
	r.want("H1", connector.StatusParked, "no invoice matched")
	if a, err := r.conn.Operator().Dismiss(ctx, r.event("H1"), "priya", "test payment"); err != nil || !a.Changed {
		t.Fatalf("Dismiss = %+v, %v", a, err)
	}
	if inv := r.invoice("Test Customer", "500.00"); inv != "ACC-SINV-2026-00001" {
		t.Fatalf("invoice %s", inv)
	}
	if a, err := r.conn.Operator().Replay(ctx, r.event("H1"), false, "Ravi (console)"); err != nil || !a.Changed {
		t.Fatalf("Replay = %+v, %v", a, err)
	}
	r.work()
	done := r.want("H1", connector.StatusDone)
	hist, err := r.conn.Operator().History(ctx, done.ID)
	if err != nil || len(hist) != 2 {
		t.Fatalf("history %+v, %v; want the dismissal and the replay", hist, err)
	}
	if h := hist[0]; h.Actor != "priya" || h.Action != connector.HistoryDismissed || h.From != connector.StatusParked ||
		h.To != connector.StatusDismissed || h.Detail != "test payment" || h.Attempts != 1 {
		t.Errorf("dismissal %+v", h)
	}
	if h := hist[1]; h.Actor != "Ravi (console)" || h.Action != connector.HistoryReplayed || h.From != connector.StatusDismissed ||
		h.To != connector.StatusPending || h.Detail != "was dismissed: dismissed by priya: test payment" || h.Attempts != 1 {
		t.Errorf("replay %+v", h)
	}
	if since, total, replayed := operator.Attempts(done, hist); since != 1 || total != 2 || !replayed {
		t.Errorf("attempts since %d, in all %d, replayed %v; want 1, 2, true", since, total, replayed)
	}
}
