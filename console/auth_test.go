package console

import (
	"strconv"
	"testing"
	"time"
)

// Past maxFailureAddrs live addresses a new one shares the overflow window (memory stays
// bounded, and fresh addresses still get at most maxLoginFailures wrong tokens a minute
// together); once the windows expire they are dropped and a new address has its own again.
func TestWrongTokenAddressesAreBounded(t *testing.T) {
	now := time.Date(2026, 1, 16, 10, 0, 0, 0, time.UTC)
	a := newAuth("token", time.Hour, func() time.Time { return now })
	for i := 0; i < maxFailureAddrs; i++ {
		if a.wrongToken("10.0." + strconv.Itoa(i/256) + "." + strconv.Itoa(i%256)) {
			t.Fatalf("address %d limited at its first wrong token", i)
		}
	}
	var limited int
	for i := 0; i < 2*maxLoginFailures; i++ {
		if a.wrongToken("192.0.2." + strconv.Itoa(i)) {
			limited++
		}
	}
	if limited != maxLoginFailures || len(a.failures) != maxFailureAddrs+1 || a.failures[overflowAddr].n != maxLoginFailures {
		t.Fatalf("%d of %d newcomers limited, %d windows (overflow %d); want %d, %d, %d", limited, 2*maxLoginFailures,
			len(a.failures), a.failures[overflowAddr].n, maxLoginFailures, maxFailureAddrs+1, maxLoginFailures)
	}
	now = now.Add(time.Minute)
	if a.wrongToken("198.51.100.1") || len(a.failures) != 1 || a.failures["198.51.100.1"].n != 1 {
		t.Fatalf("a minute later: %d windows; want the new address's own, 1", len(a.failures))
	}
}
