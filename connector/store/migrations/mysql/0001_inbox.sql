-- The inbox: one row per verified webhook or reconcile row, keyed by (account_id, event_id).
-- Id columns are utf8mb4_bin: Razorpay ids and event ids differ by letter case only.
CREATE TABLE IF NOT EXISTS inbox (
    id               BIGINT       NOT NULL AUTO_INCREMENT,
    account_id       VARCHAR(64)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    event_id         VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    event            VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    business_key     VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT '',
    raw_body         LONGBLOB     NULL,
    received_at      DATETIME(6)  NOT NULL,
    event_created_at DATETIME(6)  NULL,
    status           VARCHAR(16)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    attempts         INT          NOT NULL DEFAULT 0,
    next_attempt_at  DATETIME(6)  NOT NULL,
    lease_owner      VARCHAR(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT '',
    lease_until      DATETIME(6)  NULL,
    last_error       MEDIUMTEXT   NOT NULL,
    result_doctype   VARCHAR(140) NOT NULL DEFAULT '',
    result_name      VARCHAR(140) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT '',
    updated_at       DATETIME(6)  NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY inbox_account_event (account_id, event_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
