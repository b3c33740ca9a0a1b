package sleep

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestForWaitsTheDuration(t *testing.T) {
	start := time.Now()
	if err := For(context.Background(), 20*time.Millisecond); err != nil {
		t.Fatalf("For: %v, want nil", err)
	}
	if waited := time.Since(start); waited < 20*time.Millisecond {
		t.Errorf("For returned after %v, want at least 20ms", waited)
	}
}

func TestForEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- For(ctx, time.Hour) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("For: %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("For did not end within a minute of its context")
	}
}

func TestForWithoutADurationReportsTheContext(t *testing.T) {
	if err := For(context.Background(), 0); err != nil {
		t.Errorf("For(live, 0): %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := For(ctx, -time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("For(cancelled, -1s): %v, want context.Canceled", err)
	}
	if err := Until(ctx, time.Now().Add(time.Hour)); !errors.Is(err, context.Canceled) {
		t.Errorf("Until(cancelled, +1h): %v, want context.Canceled", err)
	}
}
