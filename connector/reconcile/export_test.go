package reconcile

import "testing"

// SetListLimit lowers ListLimit for the test t.
func SetListLimit(t *testing.T, n int) {
	old := listLimit
	listLimit = n
	t.Cleanup(func() { listLimit = old })
}
