package main

import "testing"

// The first Mode of Payment and Company read of a process are its own, not a booking's; a
// second read of either counts per booking again (a cache that stopped holding shows).
func TestPerBookingLeavesOutOnlyTheProcesssFirstSiteReads(t *testing.T) {
	mop, co := routeOther+" GET Mode of Payment", routeOther+" GET Company"
	for _, tc := range []struct {
		calls map[string]int
		once  int
		per   float64
	}{
		{map[string]int{routeListPE: 300, routeInsertPE: 300, "other GET Sales Invoice": 300, mop: 1}, 1, 3},
		{map[string]int{routeListPE: 300, routeInsertPE: 300, "other GET Sales Invoice": 300, mop: 1, co: 1}, 2, 3},
		{map[string]int{routeListPE: 300, routeInsertPE: 300, "other GET Sales Invoice": 300, mop: 301}, 1, 4},
		{map[string]int{routeListPE: 300, routeInsertPE: 300}, 0, 2},
	} {
		if got := onceCalls(tc.calls); got != tc.once {
			t.Errorf("onceCalls(%v) = %d; want %d", tc.calls, got, tc.once)
		}
		if got := perBooking(tc.calls, 300); got != tc.per {
			t.Errorf("perBooking(%v, 300) = %v; want %v", tc.calls, got, tc.per)
		}
	}
}
