package store

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

// migrations holds one directory per driver, migrations/<driver>/NNNN_name.sql, each file one
// idempotent DDL statement (MariaDB commits DDL implicitly, so a file cannot be a transaction).
// Every directory holds the same versions (TestMigrationSetsMatch).
//
//go:embed migrations/mysql/*.sql migrations/sqlite/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Each dialect's bootstrap creates the two tables Migrate needs before it can take its lock row:
// the record of applied migrations and the lock rows themselves. Every replica runs these
// concurrently; they are idempotent. Later changes to either table are ordinary migrations.

// The migration lock row: held while migrations are applied, renewed before each one, and
// taken over by another replica only if its holder died (the lease expired).
const (
	migrateLockName  = "schema:migrate"
	migrateLockLease = time.Minute
	migrateLockPoll  = 100 * time.Millisecond
)

// migration is one embedded DDL statement.
type migration struct {
	version string // file name without .sql, e.g. "0001_inbox"
	sql     string
}

// loadMigrations returns the driver's migrations in version order.
func loadMigrations(driver string) ([]migration, error) {
	dir := path.Join("migrations", driver)
	entries, err := fs.ReadDir(migrations, dir) // sorted by file name
	if err != nil {
		return nil, fmt.Errorf("store: read embedded migrations: %w", err)
	}
	var out []migration
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		body, err := fs.ReadFile(migrations, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("store: read migration %s: %w", e.Name(), err)
		}
		out = append(out, migration{version: strings.TrimSuffix(e.Name(), ".sql"), sql: string(body)})
	}
	return out, nil
}

// Migrate applies the embedded migrations that the database has not recorded in
// schema_migrations, in order. Replicas may call it at the same time: the work happens under the
// lock row "schema:migrate" in locks, and every statement is idempotent, so a replica that died
// halfway is simply finished by the next one. It waits for another replica's migration to end
// (or its lease to expire) as long as ctx allows.
func (d *DB) Migrate(ctx context.Context) error { return d.migrate(ctx, "") }

// migrate is Migrate up to and including version upTo ("" for all); a partial migration (the
// tests' store populated as an older release left it) installs no lifecycle guard.
func (d *DB) migrate(ctx context.Context, upTo string) error {
	list, err := loadMigrations(d.dl.name())
	if err != nil {
		return err
	}
	for _, stmt := range d.dl.bootstrap() {
		if err := retry(ctx, func() error { return d.bootstrapOne(ctx, stmt) }); err != nil {
			return d.unavailable("migrate: bootstrap", err)
		}
	}
	owner := migrationOwner()
	if err := d.waitMigrateLock(ctx, owner); err != nil {
		return err
	}
	defer d.ReleaseLock(context.WithoutCancel(ctx), migrateLockName, owner) //nolint:errcheck // the lease ends it anyway

	applied, err := d.appliedVersions(ctx)
	if err != nil {
		return err
	}
	if err := checkNotNewer(applied, list); err != nil {
		return err
	}
	for _, m := range list {
		if upTo != "" && m.version > upTo {
			return nil
		}
		if applied[m.version] {
			continue
		}
		now := d.now()
		held, err := d.AcquireLock(ctx, migrateLockName, owner, now, now.Add(migrateLockLease))
		if err != nil {
			return err
		}
		if !held {
			return fmt.Errorf("store: migrate %s: lost the migration lock to another replica", m.version)
		}
		if err := d.apply(ctx, m); err != nil {
			return err
		}
	}
	return d.installGuard(ctx)
}

// bootstrapOne runs one bootstrap statement. PostgreSQL's CREATE TABLE IF NOT EXISTS is not
// safe against itself: of two replicas creating the table at once, the second fails with a
// unique violation in the catalogue once the first commits. The table then exists, so the
// statement is run once more and does nothing.
func (d *DB) bootstrapOne(ctx context.Context, stmt string) error {
	_, err := d.db.ExecContext(ctx, stmt)
	if d.dl.isDuplicate(err) {
		_, err = d.db.ExecContext(ctx, stmt)
	}
	return err
}

// waitMigrateLock takes the migration lock row, polling while another replica holds it.
func (d *DB) waitMigrateLock(ctx context.Context, owner string) error {
	for {
		now := d.now()
		held, err := d.AcquireLock(ctx, migrateLockName, owner, now, now.Add(migrateLockLease))
		if err != nil {
			return err
		}
		if held {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("store: migrate: waiting for another replica's migration: %w", ctx.Err())
		case <-time.After(migrateLockPoll):
		}
	}
}

// apply runs one migration and records it. On SQLite both happen in one transaction; on MariaDB
// the DDL commits by itself, and a crash before the record only means the idempotent statement
// runs again.
func (d *DB) apply(ctx context.Context, m migration) error {
	record := d.dl.recordMigrationQuery()
	op := "migrate " + m.version
	err := retry(ctx, func() error {
		if !d.dl.transactionalDDL() {
			if _, err := d.db.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			_, err := d.db.ExecContext(ctx, record, m.version, d.arg(d.now()))
			return err
		}
		tx, err := d.db.BeginTxx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback() //nolint:errcheck // no-op after Commit
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, record, m.version, d.arg(d.now())); err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return d.unavailable(op, err)
	}
	return nil
}

// appliedVersions returns the versions recorded in schema_migrations (none when the table does
// not exist yet).
func (d *DB) appliedVersions(ctx context.Context) (map[string]bool, error) {
	exists := d.dl.migrationsTableQuery()
	var n int
	if err := d.db.GetContext(ctx, &n, exists); err != nil {
		return nil, d.unavailable("read schema_migrations", err)
	}
	applied := map[string]bool{}
	if n == 0 {
		return applied, nil
	}
	var versions []string
	if err := d.db.SelectContext(ctx, &versions, `SELECT version FROM schema_migrations`); err != nil {
		return nil, d.unavailable("read schema_migrations", err)
	}
	for _, v := range versions {
		applied[v] = true
	}
	return applied, nil
}

// pendingMigrations returns the versions of embedded migrations not yet applied, in order.
func (d *DB) pendingMigrations(ctx context.Context) ([]string, error) {
	list, err := loadMigrations(d.dl.name())
	if err != nil {
		return nil, err
	}
	applied, err := d.appliedVersions(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkNotNewer(applied, list); err != nil {
		return nil, err
	}
	var pending []string
	for _, m := range list {
		if !applied[m.version] {
			pending = append(pending, m.version)
		}
	}
	return pending, nil
}

// migrationOwner names this Migrate call in the lock row: host, process and a random suffix.
func migrationOwner() string {
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("migrate:%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// ErrSchemaNewer is returned by Migrate and Ping when the database carries migrations this
// binary does not know: a newer release migrated it, and running an older one against it could
// write rows the newer schema does not expect. Upgrade the binary.
var ErrSchemaNewer = errors.New("store: the database schema is newer than this binary")

// checkNotNewer refuses applied versions the embedded list does not have.
func checkNotNewer(applied map[string]bool, list []migration) error {
	known := make(map[string]bool, len(list))
	for _, m := range list {
		known[m.version] = true
	}
	var unknown []string
	for v := range applied {
		if !known[v] {
			unknown = append(unknown, v)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return fmt.Errorf("%w: it has migration %s; upgrade razorpay-erpnext", ErrSchemaNewer, strings.Join(unknown, ", "))
}
