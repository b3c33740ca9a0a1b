-- wait_for: what a row waits for, so whoever ends the wait wakes it (Store.WakeWaiters): another
-- worker's claim ("booking:<key>") or lock row ("lock:<name>"), a refund's receipt
-- ("receipt:<payment id>"), or the next reconcile run (a dead row whose last failure was
-- transient, "reconcile"). '' when the row waits for nothing.
ALTER TABLE inbox ADD COLUMN IF NOT EXISTS wait_for VARCHAR(320) COLLATE "C" NOT NULL DEFAULT ''
