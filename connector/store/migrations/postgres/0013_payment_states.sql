-- payment_states: the furthest state each payment has reached (DESIGN.md §4 step 4); state_rank
-- only grows. Ids use the "C" collation: Razorpay ids differ by letter case only.
CREATE TABLE IF NOT EXISTS payment_states (
    payment_id VARCHAR(100) COLLATE "C" NOT NULL,
    state      VARCHAR(32)  COLLATE "C" NOT NULL,
    state_rank INTEGER      NOT NULL,
    event_id   VARCHAR(255) COLLATE "C" NOT NULL DEFAULT '',
    updated_at TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (payment_id)
)
