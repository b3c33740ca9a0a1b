package sqlcount_test

import (
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sqlcount"
)

func TestKindNamesVerbAndFirstTable(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT id FROM inbox WHERE id = ?":                         "SELECT inbox",
		"\n\tINSERT INTO locks (name) VALUES (?) RETURNING owner":   "INSERT locks",
		"UPDATE bookings SET state = ?":                             "UPDATE bookings",
		"delete from `locks` where name = ?":                        "DELETE locks",
		"SELECT id, pri FROM (SELECT id, 0 AS pri FROM inbox) AS x": "SELECT inbox",
		"SELECT 1": "SELECT",
	} {
		if got := sqlcount.Kind(q); got != want {
			t.Errorf("Kind(%q) = %q; want %q", q, got, want)
		}
	}
}
