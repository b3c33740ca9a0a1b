-- payment_states: the furthest state each payment has reached (DESIGN.md §4 step 4); state_rank
-- only grows. TEXT compares byte for byte, so ids differing by letter case stay apart.
CREATE TABLE IF NOT EXISTS payment_states (
    payment_id TEXT    NOT NULL PRIMARY KEY,
    state      TEXT    NOT NULL,
    state_rank INTEGER NOT NULL,
    event_id   TEXT    NOT NULL DEFAULT '',
    updated_at TEXT    NOT NULL
) STRICT
