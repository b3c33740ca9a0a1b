-- bookings: the claim on a business fact (payment or refund id), in_flight then booked.
CREATE TABLE IF NOT EXISTS bookings (
    business_key TEXT    NOT NULL PRIMARY KEY,
    kind         TEXT    NOT NULL,
    state        TEXT    NOT NULL,
    owner        TEXT    NOT NULL,
    fence_until  TEXT    NOT NULL,
    doctype      TEXT    NOT NULL DEFAULT '',
    name         TEXT    NOT NULL DEFAULT '',
    amount_minor INTEGER NOT NULL DEFAULT 0,
    currency     TEXT    NOT NULL DEFAULT '',
    invoice      TEXT    NOT NULL DEFAULT '',
    created_at   TEXT    NOT NULL,
    updated_at   TEXT    NOT NULL
) STRICT
