package store

import (
	"context"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// SetBeforeClaim makes ClaimNextEvent call f with each candidate's id after it found the row
// due and before its claiming UPDATE: the window in which, on a multi-writer Galera cluster, a
// worker on another node claims the same row without this node seeing a lock.
func SetBeforeClaim(d *DB, f func(id int64)) { d.beforeClaim = f }

// DueCandidatesQuery is the statement ClaimNextEvent finds its candidates with; its arguments
// are DueCandidatesArgs.
const DueCandidatesQuery = dueCandidatesQuery

// DueCandidatesArgs are the arguments of DueCandidatesQuery at now on d's driver.
func DueCandidatesArgs(d *DB, now time.Time) []any {
	return []any{connector.StatusProcessing, d.arg(now), claimCandidates, connector.StatusPending, d.arg(now),
		claimCandidates, claimCandidates}
}

// MigrateTo applies the migrations up to and including version, as a release that knew no
// later ones would have left the database (without the lifecycle guard).
func MigrateTo(ctx context.Context, d *DB, version string) error { return d.migrate(ctx, version) }

// TimeArg is t as a query argument on d's driver.
func TimeArg(d *DB, t time.Time) any { return d.arg(t) }
