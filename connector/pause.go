package connector

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// A configuration fault (DESIGN.md §4 step 7: ERPNext answering 401/403, Razorpay refusing the
// API keys) pauses all work. The pause is a state, not a deadline: it is held, per system, until
// a call to the system that refused succeeds — a call begun after the refusal, so that an answer
// already on its way when the refusal came does not end it. recheckAt only schedules the next
// recheck: until then the workers claim nothing; from then on they claim events again, and the
// first call to the refusing system ends the pause (it succeeds) or renews it (refused again, a
// new recheckAt). So /readyz and the fault gauge say "paused" from the first refusal until the
// credentials are seen to work, also while a recheck is under way (they used to answer ready
// between a pause lapsing and its recheck's 401).

// Pauses is the configuration-fault state of a Connector, shared with the client edge
// (connector/edge calls Begin and Succeeded around every call, and its Prober rechecks
// a pause: StartProbe, Systems, Pause, Postpone, EndProbe). It is state only, no I/O, so it
// stays in the core. The zero value is not paused.
type Pauses struct {
	gen  atomic.Int64 // bumped by each refusal; a call reads it when it starts (Begin)
	held atomic.Int32 // number of systems paused, read without the lock after every call

	mu        sync.Mutex
	by        map[string]pauseOf // system (SystemERPNext, SystemRazorpay) → its pause
	recheckAt time.Time
	probing   bool // a worker is rechecking (edge.Prober)
}

// pauseOf is one system's pause: why, and the generation of the refusal that set it.
type pauseOf struct {
	reason string
	gen    int64
}

// Begin is what a call records when it starts, for Succeeded.
func (p *Pauses) Begin() int64 { return p.gen.Load() }

// refused pauses system for reason (replacing an earlier reason of the same system) and
// schedules the next recheck at recheckAt.
func (p *Pauses) refused(system, reason string, recheckAt time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.by == nil {
		p.by = map[string]pauseOf{}
	}
	p.by[system] = pauseOf{reason: reason, gen: p.gen.Add(1)}
	p.held.Store(int32(len(p.by)))
	p.recheckAt = recheckAt
}

// Pause pauses all work after system refused the credentials, for reason, until a call to it
// succeeds; the workers claim nothing before recheckAt. It logs the fault (never a secret:
// reason is a Failure's PauseReason).
func (p *Pauses) Pause(system, reason string, recheckAt time.Time, log zerolog.Logger) {
	p.refused(system, reason, recheckAt)
	log.Error().Str("reason", reason).Time("recheck_at", recheckAt).Msg("configuration fault: all work paused")
}

// Succeeded ends system's pause after a call to it succeeded, when that call began (Begin's
// value gen) after the refusal that set the pause. It reports whether a pause ended.
func (p *Pauses) Succeeded(system string, gen int64) bool {
	if p.held.Load() == 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	q, ok := p.by[system]
	if !ok || q.gen > gen {
		return false
	}
	delete(p.by, system)
	p.held.Store(int32(len(p.by)))
	return true
}

// State reports whether work is paused and why: the reasons of the paused systems, in the
// order of their names, joined by "; ".
func (p *Pauses) State() (bool, string) {
	if p.held.Load() == 0 {
		return false, ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.by) == 0 {
		return false, ""
	}
	systems := make([]string, 0, len(p.by))
	for s := range p.by {
		systems = append(systems, s)
	}
	sort.Strings(systems)
	reasons := make([]string, len(systems))
	for i, s := range systems {
		reasons[i] = p.by[s].reason
	}
	return true, strings.Join(reasons, "; ")
}

// holding reports whether workers must not claim at now — work is paused and its next recheck
// is still ahead — and when that recheck is due.
func (p *Pauses) holding(now time.Time) (time.Time, bool) {
	if p.held.Load() == 0 {
		return time.Time{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.recheckAt, len(p.by) > 0 && now.Before(p.recheckAt)
}

// Systems lists the paused systems in the order of their names.
func (p *Pauses) Systems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.by))
	for s := range p.by {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// StartProbe reports whether the caller may recheck now: work is paused and no other worker is
// rechecking. A true answer must be followed by EndProbe.
func (p *Pauses) StartProbe() bool {
	if p.held.Load() == 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.probing || len(p.by) == 0 {
		return false
	}
	p.probing = true
	return true
}

// EndProbe ends the recheck StartProbe allowed.
func (p *Pauses) EndProbe() {
	p.mu.Lock()
	p.probing = false
	p.mu.Unlock()
}

// Postpone puts the next recheck at t while work is still paused.
func (p *Pauses) Postpone(t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.by) > 0 {
		p.recheckAt = t
	}
}
