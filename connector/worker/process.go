package worker

import (
	"context"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// process decides what one claimed event means (RouteOf) and carries it out. It never panics
// on bad data: anything it cannot book comes back as an error settle makes parked or dead. The
// body's warnings (optional fields of an unusable type, read as absent: razorpay.Event.Warnings)
// come back with the result, whatever it is, for settle to keep with the outcome.
func (c *Worker) process(ctx context.Context, ev *connector.InboxEvent, owner string) (connector.Result, error) {
	if len(ev.RawBody) == 0 {
		return connector.Result{}, &connector.DeadError{Reason: "raw body no longer stored (retention); replay is not possible"}
	}
	parsed, err := razorpay.ParseEvent(ev.RawBody)
	if err != nil {
		return connector.Result{}, &connector.DeadError{Reason: "webhook body does not parse: " + err.Error()}
	}
	res, err := c.booker.Book(ctx, ev, parsed, owner)
	res.Warnings = parsed.Warnings
	return res, err
}
