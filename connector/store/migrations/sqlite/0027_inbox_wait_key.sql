-- wait_key: what the row waits for within its wait_kind (connector.Wait.Key): a business key, a
-- lock name, a payment or refund id; '' for the next reconcile run and for no wait.
ALTER TABLE inbox ADD COLUMN wait_key TEXT NOT NULL DEFAULT ''
