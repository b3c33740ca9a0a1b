package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// AcquireLock takes the lock row name (e.g. "invoice:ACC-SINV-2026-00001") for owner until
// expiresAt in one statement: it inserts the row, or takes it over when its expires_at is
// before now, or extends it when owner already holds it (expires_at becomes expiresAt). It
// returns false when another owner holds a live lock. Names and owners compare
// case-sensitively.
//
// The statement answers for itself through RETURNING (MariaDB 10.5+, SQLite 3.35+), so no
// second read can see a row that changed in between: MariaDB returns the row as the upsert left
// it (inserted, changed or left alone), SQLite returns it only when it inserted or updated it
// (DO UPDATE … WHERE false returns nothing), and the lock is owner's exactly when the returned
// owner is owner.
func (d *DB) AcquireLock(ctx context.Context, name, owner string, now, expiresAt time.Time) (bool, error) {
	if err := checkKeyOwner("acquire lock", name, maxLockName, owner); err != nil {
		return false, err
	}
	query := `INSERT INTO locks (name, owner, expires_at) VALUES (?, ?, ?)`
	args := []any{name, owner, d.arg(expiresAt)}
	upsert, more := d.dl.acquireLockUpsert(d.arg(now))
	query += upsert
	args = append(args, more...)
	var holder string
	err := d.returning(ctx, "acquire lock "+name, &holder, query+` RETURNING owner`, args...)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil // SQLite: held live by another owner, left as it is
	}
	if err != nil {
		return false, err
	}
	return holder == owner, nil
}

// ReleaseLock deletes the lock row name if owner holds it; no error otherwise.
func (d *DB) ReleaseLock(ctx context.Context, name, owner string) error {
	_, err := d.exec(ctx, "release lock "+name, `DELETE FROM locks WHERE name = ? AND owner = ?`, name, owner)
	return err
}

// LockHeld reports whether the lock row name is held live at now by any owner: it exists and
// its expires_at is not before now (AcquireLock takes over only a row that expired before now).
func (d *DB) LockHeld(ctx context.Context, name string, now time.Time) (bool, error) {
	var n int
	err := d.db.GetContext(ctx, &n, `SELECT COUNT(*) FROM locks WHERE name = ? AND expires_at >= ?`, name, d.arg(now))
	if err != nil {
		return false, d.unavailable("read lock "+name, err)
	}
	return n > 0, nil
}
