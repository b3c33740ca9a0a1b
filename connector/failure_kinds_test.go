package connector_test

import (
	"errors"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// Every kind answers what it means for the work once: whether it may pass on a later try,
// spends an attempt, pauses all work, can never change, may have written or is a shutdown.
// A nil *Failure (an error not from a client) answers no to each.
func TestFailureAnswers(t *testing.T) {
	type answers struct{ retryable, counted, pauses, final, mayHaveWritten, interrupted bool }
	for kind, want := range map[connector.FailureKind]answers{
		connector.FailRetry:     {retryable: true, counted: true},
		connector.FailThrottled: {retryable: true},
		connector.FailAmbiguous: {counted: true, mayHaveWritten: true},
		connector.FailAuth:      {pauses: true},
		connector.FailNotFound:  {final: true},
		connector.FailConflict:  {final: true},
		connector.FailRejected:  {final: true},
		connector.FailCanceled:  {interrupted: true},
	} {
		f := &connector.Failure{System: connector.SystemERPNext, Kind: kind, Err: errors.New("x")}
		got := answers{f.Retryable(), f.Counted(), f.PausesWork(), f.Final(), f.MayHaveWritten(), f.Interrupted()}
		if got != want {
			t.Errorf("kind %d: %+v, want %+v", kind, got, want)
		}
	}
	var none *connector.Failure
	if got := (answers{none.Retryable(), none.Counted(), none.PausesWork(), none.Final(), none.MayHaveWritten(), none.Interrupted()}); got != (answers{}) {
		t.Errorf("nil Failure: %+v, want every answer false", got)
	}
}
