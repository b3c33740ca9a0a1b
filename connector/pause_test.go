package connector

import (
	"testing"
	"time"
)

// The pause of each system ends only through a success of a call to that system begun after
// its refusal; the recheck time only says when workers may claim again.
func TestPausesEndOnlyByALaterSuccess(t *testing.T) {
	var p Pauses
	t0 := time.Unix(1768539600, 0)
	if paused, _ := p.State(); paused {
		t.Fatal("zero pauses is paused")
	}
	if _, hold := p.holding(t0); hold {
		t.Fatal("zero pauses holds the workers")
	}
	before := p.Begin() // a call under way when ERPNext refused another
	p.refused(SystemERPNext, "ERPNext refused the API credentials (ERPNext 401)", t0.Add(30*time.Second))
	if p.Succeeded(SystemERPNext, before) {
		t.Error("a call begun before the refusal ended the pause")
	}
	if p.Succeeded(SystemRazorpay, p.Begin()) {
		t.Error("a Razorpay success ended ERPNext's pause")
	}
	if recheck, hold := p.holding(t0.Add(29 * time.Second)); !hold || !recheck.Equal(t0.Add(30*time.Second)) {
		t.Errorf("holding before the recheck = %v %v, want true at +30s", recheck, hold)
	}
	if _, hold := p.holding(t0.Add(30 * time.Second)); hold {
		t.Error("still holding the workers at the recheck time")
	}
	p.refused(SystemRazorpay, "Razorpay refused the API keys: 401", t0.Add(40*time.Second))
	if paused, why := p.State(); !paused || why != "ERPNext refused the API credentials (ERPNext 401); Razorpay refused the API keys: 401" {
		t.Errorf("state = %v %q, want both reasons", paused, why)
	}
	if !p.Succeeded(SystemERPNext, p.Begin()) {
		t.Error("a call to ERPNext begun after its refusal did not end its pause")
	}
	if paused, why := p.State(); !paused || why != "Razorpay refused the API keys: 401" {
		t.Errorf("state = %v %q, want Razorpay's pause alone", paused, why)
	}
	if !p.Succeeded(SystemRazorpay, p.Begin()) {
		t.Error("a later Razorpay success did not end its pause")
	}
	if paused, why := p.State(); paused {
		t.Errorf("still paused (%q) after both systems answered", why)
	}
	if _, hold := p.holding(t0); hold {
		t.Error("holding the workers with no pause")
	}
}
