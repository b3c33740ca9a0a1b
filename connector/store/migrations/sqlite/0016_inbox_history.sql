-- inbox_history: what a person did to an inbox row (events replay|dismiss, the console's Replay,
-- Rebook and Dismiss), written in the same transaction as the status change it records.
-- attempts: the worker attempts the row had made since its previous replay, when it was acted on
-- (a replay resets inbox.attempts; the total is kept here).
CREATE TABLE IF NOT EXISTS inbox_history (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    inbox_id    INTEGER NOT NULL,
    at          TEXT    NOT NULL,
    actor       TEXT    NOT NULL,
    action      TEXT    NOT NULL,
    from_status TEXT    NOT NULL,
    to_status   TEXT    NOT NULL,
    detail      TEXT    NOT NULL DEFAULT '',
    attempts    INTEGER NOT NULL DEFAULT 0
) STRICT
