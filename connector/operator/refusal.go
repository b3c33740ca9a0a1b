package operator

import (
	"fmt"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// RowAction is what a replay or dismiss did to one row. Exactly one of Changed, Busy, Refused
// is true, or none (already pending or processing: nothing to do). Message is the line the
// CLI prints, e.g. "EvtX: parked → pending".
type RowAction struct {
	Changed, Busy, Refused bool
	Message                string
}

// ReplayRefusal says why r may not be replayed now: refused when its body is gone or cannot be
// parsed (no replay can book it) or its status does not allow it (rebook also allows done and
// duplicate rows, whose entry was cancelled); not refused but nothing to do when it is pending
// or processing already. "" when it may be replayed.
func ReplayRefusal(r connector.InboxEvent, rebook bool) (why string, refused bool) {
	switch {
	case r.RawBody == nil:
		return "not replayed: its raw body is gone (purged by retention after it finished, or never stored); reconcile does not re-create an event that has an inbox row", true
	case r.Status == connector.StatusPending || r.Status == connector.StatusProcessing:
		return "already " + string(r.Status), false
	case unparseable(r.RawBody) != "":
		return "not replayed: its body cannot be parsed, so no replay can book it (" + shorten(unparseable(r.RawBody), 200) +
			"); dismiss it: reconcile finds a payment it was about in Razorpay's own list", true
	case !r.Status.Replayable() && !(rebook && r.Status.Rebookable()):
		return fmt.Sprintf("not replayed: it is %s (%s)", r.Status, shorten(firstNonEmpty(r.ResultDoctype+" "+r.ResultName, r.LastError), 120)), true
	}
	return "", false
}

// unparseable is why body does not parse as a webhook event, "" when it does.
func unparseable(body []byte) string {
	if _, err := razorpay.ParseEvent(body); err != nil {
		return err.Error()
	}
	return ""
}

// operatorText is text a person typed (a reason, a name) made fit for the store: invalid UTF-8
// (a terminal in Latin-1, bytes pasted from a binary) becomes U+FFFD, as the console's login
// name does, so that MariaDB never refuses the row (error 1366) and the reason stays readable.
func operatorText(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// shorten makes s one line of at most n runes.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func firstNonEmpty(a ...string) string {
	for _, s := range a {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
