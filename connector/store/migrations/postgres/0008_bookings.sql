-- bookings: the claim on a business fact (payment or refund id), in_flight then booked.
CREATE TABLE IF NOT EXISTS bookings (
    business_key VARCHAR(100) COLLATE "C" NOT NULL,
    kind         VARCHAR(16)  COLLATE "C" NOT NULL,
    state        VARCHAR(16)  COLLATE "C" NOT NULL,
    owner        VARCHAR(191) COLLATE "C" NOT NULL,
    fence_until  TIMESTAMPTZ  NOT NULL,
    doctype      VARCHAR(140) COLLATE "C" NOT NULL DEFAULT '',
    name         VARCHAR(140) COLLATE "C" NOT NULL DEFAULT '',
    amount_minor BIGINT       NOT NULL DEFAULT 0,
    currency     VARCHAR(8)   COLLATE "C" NOT NULL DEFAULT '',
    invoice      VARCHAR(140) COLLATE "C" NOT NULL DEFAULT '',
    created_at   TIMESTAMPTZ  NOT NULL,
    updated_at   TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (business_key)
)
