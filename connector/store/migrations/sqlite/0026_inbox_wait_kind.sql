-- wait_kind: what kind of thing a row waits for (connector.WaitKind): "booking" (another
-- worker's claim), "lock" (another worker's lock row), "receipt" (a payment's receipt booked),
-- "refund" (a refund booked) or "reconcile" (the next reconcile run); '' when it waits for
-- nothing. With wait_key it is connector.Wait, so whoever ends the wait wakes the row
-- (Store.WakeWaiters).
ALTER TABLE inbox ADD COLUMN wait_kind TEXT NOT NULL DEFAULT ''
