package store_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
)

// The race harness: claimers on several store handles (one database server, or nodes of a
// Galera cluster) racing for the same rows. It uses only API that the store has had since the
// start, so deploy/galera/measure.sh can run it against an older revision as well.

// raceReport counts one kind of claim over every round of claimRace: Claims is how many were
// handed out, Doubles how many of them went to a second (or third…) claimer of the same row,
// Unclaimed rows nobody won, Errors failed calls (the first is kept in FirstError).
type raceReport struct {
	Rows, Claims, Doubles, Unclaimed, Errors int
	FirstError                               error
}

func (r raceReport) String() string {
	return fmt.Sprintf("%d rows, %d claims, %d double claims, %d unclaimed, %d errors", r.Rows, r.Claims, r.Doubles, r.Unclaimed, r.Errors)
}

// raceReports are claimRace's counts per claim kind.
type raceReports struct {
	Events, Bookings, Locks raceReport
}

// claimRace makes claimers on every handle race for the same rows, round after round: inbox
// events (half pending and due, half processing under a lease that has ended), booking keys
// and lock names (half new, half held in flight or locked by an owner whose fence or expiry
// has passed). Each round's rows are written through handles[0] and the race starts once every
// handle sees them (a Galera node applies writes of the others a little later). Every claimer
// calls ClaimNextEvent until it answers nil and tries every key and lock once, in its own
// random order. The handles may be on one database server or on different nodes of a
// cluster; they must share one migrated database.
func claimRace(t *testing.T, handles []*store.DB, rounds, rowsPerRound, claimersPerHandle int) raceReports {
	t.Helper()
	var rep raceReports
	for round := 0; round < rounds; round++ {
		now := t0.Add(time.Duration(round+1) * time.Hour)
		events, keys, locks := raceRows(t, handles, round, rowsPerRound, now)
		var (
			mu      sync.Mutex
			evWins  = map[int64]int{}
			keyWins = map[string]int{}
			lckWins = map[string]int{}
			wg      sync.WaitGroup
			start   = make(chan struct{})
		)
		fail := func(r *raceReport, err error) {
			mu.Lock()
			defer mu.Unlock()
			if r.Errors++; r.FirstError == nil {
				r.FirstError = err
			}
		}
		for h, db := range handles {
			for c := 0; c < claimersPerHandle; c++ {
				owner := fmt.Sprintf("r%d-h%d-c%d", round, h, c)
				rnd := rand.New(rand.NewPCG(uint64(round), uint64(h*100+c)))
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					for {
						ev, err := db.ClaimNextEvent(ctx, owner, now, 1000*time.Hour)
						if err != nil {
							fail(&rep.Events, err)
							break
						}
						if ev == nil {
							break
						}
						mu.Lock()
						evWins[ev.ID]++
						mu.Unlock()
					}
					for _, i := range rnd.Perm(len(keys)) {
						b := connector.Booking{BusinessKey: keys[i], Kind: connector.KindReceipt, Owner: owner,
							FenceUntil: now.Add(1000 * time.Hour), AmountMinor: 100, Currency: "INR"}
						_, won, err := db.ClaimBooking(ctx, b, now)
						if err != nil {
							fail(&rep.Bookings, err)
						} else if won {
							mu.Lock()
							keyWins[keys[i]]++
							mu.Unlock()
						}
					}
					for _, i := range rnd.Perm(len(locks)) {
						won, err := db.AcquireLock(ctx, locks[i], owner, now, now.Add(1000*time.Hour))
						if err != nil {
							fail(&rep.Locks, err)
						} else if won {
							mu.Lock()
							lckWins[locks[i]]++
							mu.Unlock()
						}
					}
				}()
			}
		}
		close(start)
		wg.Wait()
		tally(&rep.Events, events, evWins)
		tally(&rep.Bookings, keys, keyWins)
		tally(&rep.Locks, locks, lckWins)
	}
	return rep
}

// tally adds one round's winners per row to r.
func tally[K comparable](r *raceReport, rows []K, wins map[K]int) {
	r.Rows += len(rows)
	for _, k := range rows {
		switch n := wins[k]; {
		case n == 0:
			r.Unclaimed++
		default:
			r.Claims += n
			r.Doubles += n - 1
		}
	}
}

// raceRows writes one round's rows through handles[0] and waits until every handle reads the
// last of them. It returns the event ids, booking keys and lock names to race for.
func raceRows(t *testing.T, handles []*store.DB, round, n int, now time.Time) ([]int64, []string, []string) {
	t.Helper()
	db := handles[0]
	past := now.Add(-time.Minute)
	var events []int64
	var keys, locks []string
	for i := 0; i < n; i++ {
		e := newEvent("acc_race", fmt.Sprintf("evt_r%d_%d", round, i), fmt.Sprintf("pay_r%d_%d", round, i), now)
		if i%2 == 1 { // its worker died: a processing row whose lease has ended
			e.Status, e.LeaseOwner, e.LeaseUntil = connector.StatusProcessing, "dead-worker", &past
		}
		events = append(events, mustInsert(t, db, e).ID)
		key, lock := fmt.Sprintf("pay_race_r%d_%d", round, i), fmt.Sprintf("invoice:RACE-r%d-%d", round, i)
		keys, locks = append(keys, key), append(locks, lock)
		if i%2 == 1 { // held by a process that died: fence and expiry have passed
			b := connector.Booking{BusinessKey: key, Kind: connector.KindReceipt, Owner: "dead-worker",
				FenceUntil: past, AmountMinor: 100, Currency: "INR"}
			if _, won, err := db.ClaimBooking(ctx, b, past.Add(-time.Minute)); err != nil || !won {
				t.Fatalf("ClaimBooking(%s) for the dead worker = %v, %v", key, won, err)
			}
			acquire(t, db, lock, "dead-worker", past.Add(-time.Minute), past, true)
		}
	}
	last := events[len(events)-1]
	for _, h := range handles[1:] {
		waitFor(t, 30*time.Second, func() bool {
			ev, err := h.GetEvent(ctx, last)
			return err == nil && ev != nil
		})
	}
	return events, keys, locks
}

// waitFor polls cond until it holds, failing the test after limit.
func waitFor(t *testing.T, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not reached within %v", limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// wantOneWinner fails unless every row of r went to exactly one claimer without errors.
func wantOneWinner(t *testing.T, kind string, r raceReport) {
	t.Helper()
	if r.Doubles != 0 || r.Unclaimed != 0 || r.Errors != 0 || r.Claims != r.Rows {
		t.Errorf("%s: %v (first error: %v); want each of the %d rows claimed exactly once", kind, r, r.FirstError, r.Rows)
	}
}
