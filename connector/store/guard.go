package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// The lifecycle guard: triggers, generated from connector.Transitions and
// connector.BookingTransitions and installed (replaced) by every Migrate, that refuse a status
// change of an inbox row, or a state change of a bookings row, that the tables do not allow —
// whoever writes it, the store or a person at the SQL prompt. An inbox status change must
// name its action in last_action in the same UPDATE (the store's statements do); one that
// names none keeps the previous action, which does not make the new move, and is refused.
// A row keeping its status (a lease extended, a body purged) is not a status change.
//
// On MariaDB, creating a trigger needs the TRIGGER privilege, and with binary logging on also
// SUPER or log_bin_trust_function_creators=1.

// ErrTransition is returned (wrapped) when the database's lifecycle guard refused a write: the
// status change it makes is not in connector.Transitions (or the state change not in
// connector.BookingTransitions). It never wraps connector.ErrStoreUnavailable.
var ErrTransition = errors.New("store: the lifecycle guard refused a status change not in the lifecycle table")

// guardMessage starts the error the triggers raise, so that isGuardRefusal knows it.
const guardMessage = "lifecycle guard:"

// isGuardRefusal reports whether err is a lifecycle trigger's refusal.
func isGuardRefusal(err error) bool {
	return err != nil && strings.Contains(err.Error(), guardMessage)
}

// inboxAllowed is the SQL condition, over OLD and NEW, of the status changes Transitions
// allows: one term per (from, to, action) with from ≠ to.
func inboxAllowed() string {
	var terms []string
	for _, e := range connector.Edges() {
		if e.From == e.To {
			continue
		}
		terms = append(terms, fmt.Sprintf("(OLD.status = %s AND NEW.status = %s AND NEW.last_action = %s)",
			quote(string(e.From)), quote(string(e.To)), quote(string(e.Action))))
	}
	return strings.Join(terms, "\n\t\tOR ")
}

// bookingAllowed is the SQL condition of the state changes BookingTransitions allows.
func bookingAllowed() string {
	var terms []string
	for _, t := range connector.BookingTransitions {
		if t.From == t.To {
			continue
		}
		terms = append(terms, fmt.Sprintf("(OLD.state = %s AND NEW.state = %s)", quote(string(t.From)), quote(string(t.To))))
	}
	return strings.Join(terms, "\n\t\tOR ")
}

// quote is s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// guardStatements returns the statements that (re)install the guard on driver.
func guardStatements(driver string) []string {
	inboxMsg := guardMessage + " inbox status change not in connector.Transitions"
	bookingMsg := guardMessage + " bookings state change not in connector.BookingTransitions"
	if driver == DriverMySQL {
		trigger := func(name, table, col, allowed, msg string) string {
			return fmt.Sprintf(`CREATE OR REPLACE TRIGGER %[1]s BEFORE UPDATE ON %[2]s FOR EACH ROW
BEGIN
	IF NOT (OLD.%[3]s <=> NEW.%[3]s) AND NOT (%[4]s) THEN
		SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = %[5]s;
	END IF;
END`, name, table, col, allowed, quote(msg))
		}
		return []string{
			trigger("inbox_lifecycle", "inbox", "status", inboxAllowed(), inboxMsg),
			trigger("bookings_lifecycle", "bookings", "state", bookingAllowed(), bookingMsg),
		}
	}
	if driver == DriverPostgres {
		return postgresGuard(inboxMsg, bookingMsg)
	}
	trigger := func(name, table, col, allowed, msg string) string {
		return fmt.Sprintf(`CREATE TRIGGER %[1]s BEFORE UPDATE OF %[3]s ON %[2]s FOR EACH ROW
	WHEN OLD.%[3]s IS NOT NEW.%[3]s AND NOT (%[4]s)
BEGIN
	SELECT RAISE(ABORT, %[5]s);
END`, name, table, col, allowed, quote(msg))
	}
	return []string{
		`DROP TRIGGER IF EXISTS inbox_lifecycle`,
		trigger("inbox_lifecycle", "inbox", "status", inboxAllowed(), inboxMsg),
		`DROP TRIGGER IF EXISTS bookings_lifecycle`,
		trigger("bookings_lifecycle", "bookings", "state", bookingAllowed(), bookingMsg),
	}
}

// postgresGuard is the guard on PostgreSQL: a PL/pgSQL function per table that raises the
// refusal, and a BEFORE UPDATE trigger calling it, replaced in the Migrate's transaction
// (PostgreSQL's DDL is transactional).
func postgresGuard(inboxMsg, bookingMsg string) []string {
	fn := func(name, col, allowed, msg string) string {
		return fmt.Sprintf(`CREATE OR REPLACE FUNCTION %[1]s() RETURNS trigger LANGUAGE plpgsql AS $guard$
BEGIN
	IF OLD.%[2]s IS DISTINCT FROM NEW.%[2]s AND NOT (%[3]s) THEN
		RAISE EXCEPTION USING MESSAGE = %[4]s;
	END IF;
	RETURN NEW;
END
$guard$`, name, col, allowed, quote(msg))
	}
	return []string{
		fn("inbox_lifecycle", "status", inboxAllowed(), inboxMsg),
		`DROP TRIGGER IF EXISTS inbox_lifecycle ON inbox`,
		`CREATE TRIGGER inbox_lifecycle BEFORE UPDATE ON inbox FOR EACH ROW EXECUTE FUNCTION inbox_lifecycle()`,
		fn("bookings_lifecycle", "state", bookingAllowed(), bookingMsg),
		`DROP TRIGGER IF EXISTS bookings_lifecycle ON bookings`,
		`CREATE TRIGGER bookings_lifecycle BEFORE UPDATE ON bookings FOR EACH ROW EXECUTE FUNCTION bookings_lifecycle()`,
	}
}

// installGuard replaces the lifecycle triggers with the ones the tables give now: in one
// transaction on SQLite, one atomic CREATE OR REPLACE per trigger on MariaDB.
func (d *DB) installGuard(ctx context.Context) error {
	stmts := guardStatements(d.Driver())
	err := retry(ctx, func() error {
		if d.Driver() == DriverMySQL {
			for _, s := range stmts {
				if _, err := d.db.ExecContext(ctx, s); err != nil {
					return err
				}
			}
			return nil
		}
		tx, err := d.db.BeginTxx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback() //nolint:errcheck // no-op after Commit
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return tx.Commit()
	})
	if err != nil {
		return d.unavailable("migrate: install the lifecycle guard", err)
	}
	return nil
}
