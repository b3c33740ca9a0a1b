package razorpay

import "strings"

// EventIDLen is the length of a Razorpay event id: 14 ASCII letters and digits, case-sensitive,
// no prefix, e.g. "Rp71ZiqdEWusLa" (spec/razorpay.md §1.2, observed in every captured delivery;
// the sample payloads' "T3stEvtCapNb01" and the simulator's ids have the same shape).
const EventIDLen = 14

// ReconcileEventIDPrefix starts the event id of an inbox row the reconciler creates for an
// entity no webhook delivered: "reconcile:" followed by the entity id (DESIGN.md §8).
const ReconcileEventIDPrefix = "reconcile:"

// ValidEventID reports whether id has the shape of an event id the connector stores, accepting
// exactly:
//
//   - a Razorpay event id (the X-Razorpay-Event-Id header): EventIDLen ASCII letters and digits;
//   - ReconcileEventIDPrefix followed by a Razorpay entity id: 1 to 10 lowercase ASCII letters,
//     "_", then EventIDLen ASCII letters and digits ("reconcile:pay_T3stPayCard001",
//     "reconcile:rfnd_T3stRfndPart01").
//
// Anything else is refused: empty, other lengths, spaces or punctuation, non-ASCII letters, and
// any byte sequence that is not valid UTF-8 (so an id that passes can be stored in any text
// column). The webhook intake answers 400 to a header that is not a Razorpay event id; it should
// not accept the reconcile form from outside, which IsReconcileEventID tells apart.
func ValidEventID(id string) bool {
	if rest, ok := strings.CutPrefix(id, ReconcileEventIDPrefix); ok {
		return validEntityID(rest)
	}
	return alnum(id, EventIDLen)
}

// IsReconcileEventID reports whether id is a valid event id of the reconcile form.
func IsReconcileEventID(id string) bool {
	return strings.HasPrefix(id, ReconcileEventIDPrefix) && ValidEventID(id)
}

// validEntityID reports whether id looks like "pay_" + 14 letters and digits.
func validEntityID(id string) bool {
	prefix, rest, ok := strings.Cut(id, "_")
	if !ok || len(prefix) == 0 || len(prefix) > 10 {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if prefix[i] < 'a' || prefix[i] > 'z' {
			return false
		}
	}
	return alnum(rest, EventIDLen)
}

// alnum reports whether s is exactly n ASCII letters and digits.
func alnum(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
