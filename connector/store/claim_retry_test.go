package store

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// The claim's retry counter (razorpay_erpnext_store_claim_retries_total{reason="conflict"})
// counts each statement repeated after a transient refusal — the two deadlock answers here —
// and not the final success or a plain error.
func TestRetryCountedCountsRepeatedStatements(t *testing.T) {
	for _, drv := range bothDrivers {
		t.Run(drv, func(t *testing.T) {
			transient := transientError(t, drv)
			var repeats atomic.Uint64
			calls := 0
			err := retryCounted(context.Background(), &repeats, func() error {
				if calls++; calls <= 2 {
					return transient
				}
				return nil
			})
			if err != nil || calls != 3 || repeats.Load() != 2 {
				t.Fatalf("retryCounted = %v after %d calls, %d counted; want nil after 3, 2 counted", err, calls, repeats.Load())
			}
			plain := errors.New("syntax error")
			err = retryCounted(context.Background(), &repeats, func() error { return plain })
			if !errors.Is(err, plain) || repeats.Load() != 2 {
				t.Fatalf("plain error: %v, %d counted; want it returned at once, still 2", err, repeats.Load())
			}
		})
	}
}
