-- inbox_history: what a person did to an inbox row (events replay|dismiss, the console's Replay,
-- Rebook and Dismiss), written in the same transaction as the status change it records.
-- attempts: the worker attempts the row had made since its previous replay, when it was acted on
-- (a replay resets inbox.attempts; the total is kept here).
CREATE TABLE IF NOT EXISTS inbox_history (
    id          BIGINT       NOT NULL AUTO_INCREMENT,
    inbox_id    BIGINT       NOT NULL,
    at          DATETIME(6)  NOT NULL,
    actor       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    action      VARCHAR(32)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    from_status VARCHAR(32)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    to_status   VARCHAR(32)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    detail      MEDIUMTEXT   NOT NULL,
    attempts    INT          NOT NULL DEFAULT 0,
    PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
