-- The inbox: one row per verified webhook or reconcile row, keyed by (account_id, event_id).
-- Text comparison is binary (case-sensitive) by default. Times are UTC text
-- 'YYYY-MM-DD HH:MM:SS.ffffff', which sorts like time.
CREATE TABLE IF NOT EXISTS inbox (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id       TEXT    NOT NULL,
    event_id         TEXT    NOT NULL,
    event            TEXT    NOT NULL,
    business_key     TEXT    NOT NULL DEFAULT '',
    raw_body         BLOB,
    received_at      TEXT    NOT NULL,
    event_created_at TEXT,
    status           TEXT    NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TEXT    NOT NULL,
    lease_owner      TEXT    NOT NULL DEFAULT '',
    lease_until      TEXT,
    last_error       TEXT    NOT NULL DEFAULT '',
    result_doctype   TEXT    NOT NULL DEFAULT '',
    result_name      TEXT    NOT NULL DEFAULT '',
    updated_at       TEXT    NOT NULL,
    UNIQUE (account_id, event_id)
) STRICT
