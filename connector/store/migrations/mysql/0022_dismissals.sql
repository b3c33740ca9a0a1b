-- dismissals: a person's decision that an inbox row's payment is never booked (events dismiss, the
-- console's Dismiss): who (actor), why (reason) and when (at), inserted in the same transaction as
-- the row's move to dismissed. event_id, event and business_key are the row's, copied when it was
-- dismissed. A dismissal holds while lifted_at is NULL; a replay or rebook of the row, or of
-- another receipt event of its payment, lifts it (lifted_by, lifted_at) and the row stays as
-- the record of what was decided.
CREATE TABLE IF NOT EXISTS dismissals (
    id           BIGINT       NOT NULL AUTO_INCREMENT,
    inbox_id     BIGINT       NOT NULL,
    event_id     VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    event        VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    business_key VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT '',
    actor        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    reason       MEDIUMTEXT   NOT NULL,
    at           DATETIME(6)  NOT NULL,
    lifted_by    VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT '',
    lifted_at    DATETIME(6)  NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
