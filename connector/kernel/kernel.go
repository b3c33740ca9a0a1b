// Package kernel is the booking kernel of razorpay-erpnext: the claims, document locks, facts
// of the site, lookup before create and apply of a Plan that every job runs on (Kernel). It
// sits below the jobs — connector/booking and connector/settlement import it, it imports
// neither — and above the core's vocabulary and ports (connector).
package kernel

import (
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// Kernel is what every booking job runs on (DESIGN.md §4 steps 3–7): the business-key claim
// and the document lock (claim.go, lock.go), what is known of the site and read once
// (site.go), lookup before create (lookup.go), the account and payment-state prechecks
// (precheck.go), the wake-ups of waiters (wake.go), the synthetic rows it queues (queue.go,
// synthetic.go) and the apply of a Plan (apply.go). It is given its collaborators explicitly
// (connector.BookingDeps): the store, the Account whose money it books (its ERPNext and
// Razorpay clients, already behind the client edge), the clock, the logger, the write fence,
// erpnext.max_concurrency, the counters and a wake func. It never reads the global Config.
type Kernel struct {
	acct   connector.Account
	store  connector.Store
	erp    connector.ERPNext     // acct.ERP
	rzp    connector.RazorpayAPI // acct.Razorpay, nil when not configured
	now    func() time.Time
	log    zerolog.Logger
	counts connector.Counts
	erpSem chan struct{} // erpnext.max_concurrency
	// fenceAfter is how long a claim holds after a write is sent: erpnext.server_timeout +
	// worker.fence_margin.
	fenceAfter time.Duration
	// wakeIdle wakes an idle worker of this process (Connector.Wake).
	wakeIdle func()

	mu        sync.Mutex
	siteReads sync.Mutex           // held while a fact of the site is first read (site.go), so it is read once
	paidTo    map[string]string    // company → Mode of Payment account, cached after first read
	roundOffs map[string][2]string // company → round-off account and cost center
	// apiUser is the ERPNext user the API key belongs to, cached for comments (connector/comment.go).
	apiUser string
}

// New is the kernel of d.Account on d.Store. One kernel serves all the jobs of an Account: its
// claims, its write slots and its facts of the site are shared.
func New(d connector.BookingDeps) *Kernel {
	return &Kernel{
		acct: d.Account, store: d.Store, erp: d.Account.ERP, rzp: d.Account.Razorpay, now: d.Now, log: d.Log, counts: d.Counts,
		erpSem:     make(chan struct{}, max(d.MaxConcurrency, 1)),
		fenceAfter: d.Fence,
		wakeIdle:   d.Wake,
		paidTo:     map[string]string{}, roundOffs: map[string][2]string{},
	}
}
