package razorpaysim

import (
	"math"
	"slices"
	"sort"
	"time"
)

// sortedIndex keeps records in ascending (time, seq) order, so that a time window is two
// binary searches and a page is a slice walk: O(log n + page) per request, no per-request copy
// or sort of the whole collection. seq is unique per record, which makes the order total and
// stable. Records arrive mostly in order, so an insert is usually an append.
type sortedIndex[T any] struct {
	items []T
	key   func(T) (int64, int64)
}

// after returns the position of the first record whose key is greater than (t, seq).
func (x *sortedIndex[T]) after(t, seq int64) int {
	return sort.Search(len(x.items), func(i int) bool {
		ti, si := x.key(x.items[i])
		return ti > t || (ti == t && si > seq)
	})
}

// insert adds v at its place (after every record with an equal or smaller key).
func (x *sortedIndex[T]) insert(v T) {
	t, seq := x.key(v)
	if n := len(x.items); n == 0 || !x.less(v, x.items[n-1]) {
		x.items = append(x.items, v)
		return
	}
	x.items = slices.Insert(x.items, x.after(t, seq), v)
}

func (x *sortedIndex[T]) less(a, b T) bool {
	ta, sa := x.key(a)
	tb, sb := x.key(b)
	return ta < tb || (ta == tb && sa < sb)
}

// position returns the index of v, which must be in the index.
func (x *sortedIndex[T]) position(v T) int {
	t, seq := x.key(v)
	return x.after(t, seq) - 1
}

// window returns the positions [lo, hi) of the records whose time lies in [from, to], both
// inclusive; 0 leaves a bound open.
func (x *sortedIndex[T]) window(from, to int64) (lo, hi int) {
	hi = len(x.items)
	if from != 0 {
		lo = x.after(from-1, math.MaxInt64)
	}
	if to != 0 {
		hi = x.after(to, math.MaxInt64)
	}
	return lo, max(lo, hi)
}

// listing is a collection as the list endpoints see it: records ordered by created_at (ties
// by creation order) for from/to/count/skip, and by the simulator-clock time they were added,
// to find the few that list lag still hides (Faults.ListLag).
type listing[T any] struct {
	byCreated sortedIndex[T]
	byAdded   sortedIndex[T]
}

// newListing returns an empty listing; created gives a record's (created_at, seq) and added
// its (added unix nanoseconds, seq).
func newListing[T any](created, added func(T) (int64, int64)) *listing[T] {
	return &listing[T]{byCreated: sortedIndex[T]{key: created}, byAdded: sortedIndex[T]{key: added}}
}

func (l *listing[T]) add(v T) {
	l.byCreated.insert(v)
	l.byAdded.insert(v)
}

func (l *listing[T]) len() int { return len(l.byCreated.items) }

// hiddenAfter returns the added time (unix nanoseconds) after which records are still hidden
// by list lag, or math.MaxInt64 when lag is 0.
func hiddenAfter(now time.Time, lag time.Duration) int64 {
	if lag <= 0 {
		return math.MaxInt64
	}
	return now.Add(-lag).UnixNano()
}

// hidden returns the records added less than lag before now (simulator clock), which list
// endpoints leave out; nil when lag is 0.
func (l *listing[T]) hidden(now time.Time, lag time.Duration) []T {
	if lag <= 0 {
		return nil
	}
	return l.byAdded.items[l.byAdded.after(hiddenAfter(now, lag), math.MaxInt64):]
}

// page returns, newest first (later-created first on equal created_at), the p.count records
// after p.skip among those created in [p.from, p.to] and not hidden by lag at now. It costs
// O(log n + count) plus, with h records hidden, the smaller of O(h log n) and O(skip + h).
func (l *listing[T]) page(p page, now time.Time, lag time.Duration) []T {
	x := &l.byCreated
	lo, hi := x.window(p.from, p.to)
	if p.skip >= hi-lo {
		return nil
	}
	hidden := l.hidden(now, lag)
	out := make([]T, 0, min(p.count, hi-lo))
	if len(hidden) > p.skip { // walking past the hidden ones is cheaper than placing them
		cut, skip := hiddenAfter(now, lag), p.skip
		for i := hi - 1; i >= lo && len(out) < p.count; i-- {
			if added, _ := l.byAdded.key(x.items[i]); added > cut {
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			out = append(out, x.items[i])
		}
		return out
	}
	var hpos []int // positions of hidden records inside the window, highest first
	for _, h := range hidden {
		if t, _ := x.key(h); p.in(t) {
			hpos = append(hpos, x.position(h))
		}
	}
	slices.SortFunc(hpos, func(a, b int) int { return b - a })
	k, j := p.skip, 0 // k: raw offset from the newest that holds the skip-th visible record
	for j < len(hpos) && hpos[j] >= hi-1-k {
		k, j = k+1, j+1
	}
	for i := hi - 1 - k; i >= lo && len(out) < p.count; i-- {
		if j < len(hpos) && hpos[j] == i {
			j++
			continue
		}
		out = append(out, x.items[i])
	}
	return out
}
