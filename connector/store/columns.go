package store

import (
	"fmt"
	"unicode/utf8"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// Column limits, in characters (migrations/*/0001_inbox.sql, bootstrap in migrate.go).
const (
	maxAccountID   = 64
	maxEventID     = 255
	maxEventName   = 100
	maxBusinessKey = 100
	maxOwner       = 191
	maxLockName    = 255
	maxWaitKind    = 16       // inbox.wait_kind (migrations/*/0026_inbox_wait_kind.sql)
	maxWaitKey     = 320      // inbox.wait_key (migrations/*/0027_inbox_wait_key.sql)
	maxLastError   = 64 << 10 // bytes; longer reasons are cut at a rune boundary
)

// knownStatus reports whether s is an inbox status the connector defines (DESIGN.md §8).
func knownStatus[S ~string](s S) bool { return connector.Status(s).Known() }

// truncateRunes cuts s to at most n characters.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// truncateBytes cuts s to at most n bytes without splitting a character.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// checkKeyOwner refuses an empty or oversized key or owner; maxKey is in characters.
func checkKeyOwner(op, key string, maxKey int, owner string) error {
	if key == "" || utf8.RuneCountInString(key) > maxKey {
		return fmt.Errorf("store: %s: key must be 1 to %d characters", op, maxKey)
	}
	if owner == "" || utf8.RuneCountInString(owner) > maxOwner {
		return fmt.Errorf("store: %s %s: owner must be 1 to %d characters", op, key, maxOwner)
	}
	return nil
}

// maxPaymentState is the length limit of payment_states.state, in characters.
const maxPaymentState = 32
