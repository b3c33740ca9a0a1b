-- payment_states: the furthest state each payment has reached (DESIGN.md §4 step 4); state_rank
-- only grows. payment_id and event_id are utf8mb4_bin: Razorpay ids differ by letter case only.
CREATE TABLE IF NOT EXISTS payment_states (
    payment_id VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    state      VARCHAR(32)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    state_rank INT          NOT NULL,
    event_id   VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT '',
    updated_at DATETIME(6)  NOT NULL,
    PRIMARY KEY (payment_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
