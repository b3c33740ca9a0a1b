package erpnextsim

import (
	"strings"
	"time"
)

// Two ways real MariaDB answers writes that meet another transaction, modelled on the window
// between a write's validation and its commit (ServeHTTP runs every write twice: validate,
// then validate again and commit; CommitLate widens the gap):
//
//   - Two inserts of one client-supplied name at once (name_entries_by_payment_id on Frappe
//     15.72): one wins, the other gets 500 QueryDeadlockError (1213) and nothing of it is
//     committed (erpnext-recorded-connector/R03) — not 409 and not a validation refusal. An
//     insert whose name was taken before it started still gets 409 DuplicateEntryError
//     (erpnext-recorded/07-insert-duplicate-client-name) or the validation refusal that comes
//     first.
//   - A write that must update a row another connection holds FOR UPDATE (HoldRowLock) waits
//     for it, at most Options.LockWaitTimeout, then gets 500 QueryTimeoutError (1205) with
//     nothing committed (R05).

// DefaultLockWaitTimeout is innodb_lock_wait_timeout of the recorded site (R05: 5 s; MariaDB's
// own default is 50 s).
const DefaultLockWaitTimeout = 5 * time.Second

func deadlockError() *fErr {
	e := serverError("QueryDeadlockError", "frappe.exceptions.QueryDeadlockError: (1213, 'Deadlock found when trying to get lock; try restarting transaction')")
	e.excSource = true
	return e
}

func lockWaitError() *fErr {
	e := serverError("QueryTimeoutError", "frappe.exceptions.QueryTimeoutError: (1205, 'Lock wait timeout exceeded; try restarting transaction')")
	e.excSource = true
	return e
}

// claimName is called by an insert with a client-supplied name before it validates. During a
// request's first pass it registers the name as being inserted by c, and refuses with the
// deadlock when another request in flight is inserting the same name. Called with s.mu held.
func (db *store) claimName(c *call, dt, name string) *fErr {
	if name == "" || c.direct {
		return nil
	}
	key := dt + "\x00" + strings.ToLower(name)
	if owner, busy := db.inserting[key]; busy && owner != c {
		return deadlockError()
	}
	if db.inserting == nil {
		db.inserting = map[string]*call{}
	}
	db.inserting[key] = c
	c.claims = append(c.claims, key)
	return nil
}

// releaseNames drops c's name claims when its request ends. Called with s.mu held.
func (db *store) releaseNames(c *call) {
	for _, k := range c.claims {
		if db.inserting[k] == c {
			delete(db.inserting, k)
		}
	}
	c.claims = nil
}

// touchRow records that the write will update row (doctype, name) when it commits.
func (c *call) touchRow(doctype, name string) {
	c.rows = append(c.rows, doctype+"\x00"+strings.ToLower(name))
}

// HoldRowLock is Site.HoldRowLock.
func (ft *faults) HoldRowLock(doctype, name string, d time.Duration) {
	ft.fmu.Lock()
	if ft.rowLocks == nil {
		ft.rowLocks = map[string]time.Time{}
	}
	ft.rowLocks[doctype+"\x00"+strings.ToLower(name)] = time.Now().Add(d)
	ft.fmu.Unlock()
}

// waitRowLocks waits until no row c touches is held, by the wall clock; it returns the lock
// wait error when that takes longer than the site's lock wait timeout.
func (ft *faults) waitRowLocks(c *call) *fErr {
	limit := ft.opt.LockWaitTimeout
	if limit <= 0 {
		limit = DefaultLockWaitTimeout
	}
	deadline := time.Now().Add(limit)
	for {
		ft.fmu.Lock()
		var until time.Time
		for _, k := range c.rows {
			if t := ft.rowLocks[k]; t.After(until) {
				until = t
			}
		}
		ft.fmu.Unlock()
		now := time.Now()
		if !until.After(now) {
			return nil
		}
		if until.After(deadline) {
			time.Sleep(time.Until(deadline))
			return lockWaitError()
		}
		time.Sleep(until.Sub(now))
	}
}
