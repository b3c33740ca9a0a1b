-- reconcile_runs: one row per reconcile run, with its window and counts.
CREATE TABLE IF NOT EXISTS reconcile_runs (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    window_from    TEXT    NOT NULL,
    window_to      TEXT    NOT NULL,
    scanned        INTEGER NOT NULL DEFAULT 0,
    booked         INTEGER NOT NULL DEFAULT 0,
    already_booked INTEGER NOT NULL DEFAULT 0,
    parked         INTEGER NOT NULL DEFAULT 0,
    started_at     TEXT    NOT NULL,
    finished_at    TEXT,
    error          TEXT    NOT NULL DEFAULT ''
) STRICT
