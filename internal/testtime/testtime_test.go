package testtime

import (
	"testing"
	"time"
)

func TestPollReturnsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	if !Poll(time.Minute, func() bool { calls++; return calls == 3 }) || calls != 3 {
		t.Fatalf("Poll: %d calls, want true at the third", calls)
	}
}

func TestPollGivesUpAfterItsLimit(t *testing.T) {
	start := time.Now()
	if Poll(30*time.Millisecond, func() bool { return false }) {
		t.Fatal("Poll reported a condition that never held")
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("gave up after %v, before its limit", d)
	}
}

func TestLongSkipsOnlyUnderShortOutsideCI(t *testing.T) {
	for _, c := range []struct {
		short bool
		ci    string
		skip  bool
	}{{false, "", false}, {true, "", true}, {true, "true", false}, {false, "true", false}} {
		if got := skipLong(c.short, c.ci); got != c.skip {
			t.Errorf("-short=%v CI=%q: skip %v, want %v", c.short, c.ci, got, c.skip)
		}
	}
}
