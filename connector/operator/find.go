package operator

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// FindEvents resolves an ID a person typed: an event id names that event (even when the same
// text is another event's business key), a business key (pay_…, rfnd_…) its rows, else "#N"
// or N the row with that id. An error when nothing matches.
func (o *Operator) FindEvents(ctx context.Context, id string) ([]connector.InboxEvent, error) {
	rows, err := o.store.FindEvents(ctx, id)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		if n, perr := strconv.ParseInt(strings.TrimPrefix(id, "#"), 10, 64); perr == nil {
			if ev, gerr := o.store.GetEvent(ctx, n); gerr == nil {
				return []connector.InboxEvent{*ev}, nil
			}
		}
		return nil, fmt.Errorf("no inbox event has event id or business key %q", id)
	}
	var byEventID []connector.InboxEvent
	for _, r := range rows {
		if r.EventID == id {
			byEventID = append(byEventID, r)
		}
	}
	if len(byEventID) > 0 {
		return byEventID, nil
	}
	return rows, nil
}
