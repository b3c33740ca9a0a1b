package kernel

import (
	"context"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// insertSynthetic inserts the synthetic inbox row body for key (event id reconcile:<key>, the
// id reconcile uses too, so it is inserted once whatever other rows key has), created at
// createdAt (unix seconds), due now, and wakes a worker.
func (c *Kernel) insertSynthetic(ctx context.Context, event, key string, createdAt int64, body []byte) error {
	now := c.now().UTC()
	created := time.Unix(createdAt, 0).UTC()
	_, err := c.store.InsertEvent(ctx, &connector.InboxEvent{AccountID: c.acct.ID, EventID: connector.ReconcileEventPrefix + key,
		Event: event, BusinessKey: key, RawBody: body, ReceivedAt: now, EventCreatedAt: &created,
		Status: connector.StatusPending, NextAttemptAt: now})
	if err == nil {
		c.wakeIdle()
	}
	return err
}
