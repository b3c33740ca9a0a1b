-- dismissals: a person's decision that an inbox row's payment is never booked (events dismiss, the
-- console's Dismiss): who (actor), why (reason) and when (at), inserted in the same transaction as
-- the row's move to dismissed. event_id, event and business_key are the row's, copied when it was
-- dismissed. A dismissal holds while lifted_at is NULL; a replay or rebook of the row, or of
-- another receipt event of its payment, lifts it (lifted_by, lifted_at) and the row stays as
-- the record of what was decided.
CREATE TABLE IF NOT EXISTS dismissals (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    inbox_id     INTEGER NOT NULL,
    event_id     TEXT    NOT NULL,
    event        TEXT    NOT NULL,
    business_key TEXT    NOT NULL DEFAULT '',
    actor        TEXT    NOT NULL,
    reason       TEXT    NOT NULL DEFAULT '',
    at           TEXT    NOT NULL,
    lifted_by    TEXT    NOT NULL DEFAULT '',
    lifted_at    TEXT
) STRICT
