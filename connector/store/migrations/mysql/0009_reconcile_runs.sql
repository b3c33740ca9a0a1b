-- reconcile_runs: one row per reconcile run, with its window and counts.
CREATE TABLE IF NOT EXISTS reconcile_runs (
    id             BIGINT      NOT NULL AUTO_INCREMENT,
    window_from    DATETIME(6) NOT NULL,
    window_to      DATETIME(6) NOT NULL,
    scanned        INT         NOT NULL DEFAULT 0,
    booked         INT         NOT NULL DEFAULT 0,
    already_booked INT         NOT NULL DEFAULT 0,
    parked         INT         NOT NULL DEFAULT 0,
    started_at     DATETIME(6) NOT NULL,
    finished_at    DATETIME(6) NULL,
    error          MEDIUMTEXT  NOT NULL,
    PRIMARY KEY (id),
    KEY reconcile_runs_started (started_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
