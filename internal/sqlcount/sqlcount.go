// Package sqlcount counts the statements and commits a database/sql pool sends, at the driver
// edge: Counter.Wrap wraps a driver.Connector, and every statement the database executes is
// counted once by kind and table ("SELECT inbox", "INSERT locks"), whether it went as a plain
// query (go-sql-driver's interpolateParams) or as a prepared statement; a prepare alone counts
// nothing. Commits are the explicit transactions committed plus the writes (INSERT, UPDATE,
// DELETE, REPLACE) run outside a transaction, each of which the database commits on its own
// (autocommit). Tests use it to hold the store to a statement budget.
package sqlcount

import (
	"context"
	"database/sql/driver"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Counter is a tally of statements and commits, safe for concurrent use. Its zero value is
// ready to use.
type Counter struct {
	mu      sync.Mutex
	kinds   map[string]int
	commits int
	texts   []string
}

// Counts is a snapshot of a Counter: Statements by "KIND table" (KIND is the statement's first
// keyword in upper case, table the first table it names, "" when none), Commits as described
// in the package comment, and Texts, every statement text in the order run.
type Counts struct {
	Statements map[string]int
	Commits    int
	Texts      []string
}

// Total is the number of statements counted.
func (c Counts) Total() int {
	n := 0
	for _, v := range c.Statements {
		n += v
	}
	return n
}

// String is the histogram, one "KIND table: n" a line, largest first, then the totals.
func (c Counts) String() string {
	keys := make([]string, 0, len(c.Statements))
	for k := range c.Statements {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if c.Statements[keys[i]] != c.Statements[keys[j]] {
			return c.Statements[keys[i]] > c.Statements[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%-24s %d\n", k, c.Statements[k])
	}
	fmt.Fprintf(&b, "%d statements, %d commits", c.Total(), c.Commits)
	return b.String()
}

// Snapshot returns the counts so far.
func (c *Counter) Snapshot() Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := Counts{Statements: make(map[string]int, len(c.kinds)), Commits: c.commits, Texts: append([]string(nil), c.texts...)}
	for k, v := range c.kinds {
		out.Statements[k] = v
	}
	return out
}

// Reset sets every count back to zero.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.kinds, c.commits, c.texts = nil, 0, nil
}

// tableAfter finds the first table a statement names: after FROM, INTO or UPDATE.
var tableAfter = regexp.MustCompile("(?is)\\b(?:from|into|update)\\s+`?([a-z_][a-z0-9_]*)")

// Kind returns the "KIND table" a statement text is counted under.
func Kind(query string) string {
	q := strings.TrimSpace(query)
	verb, _, _ := strings.Cut(q, " ")
	verb = strings.ToUpper(strings.TrimRight(verb, "\n\t("))
	table := ""
	if m := tableAfter.FindStringSubmatch(q); m != nil {
		table = strings.ToLower(m[1])
	}
	return strings.TrimSpace(verb + " " + table)
}

func isWrite(kind string) bool {
	verb, _, _ := strings.Cut(kind, " ")
	switch verb {
	case "INSERT", "UPDATE", "DELETE", "REPLACE":
		return true
	}
	return false
}

// ran counts one executed statement on a connection that is (or is not) in a transaction.
func (c *Counter) ran(query string, inTx bool) {
	k := Kind(query)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kinds == nil {
		c.kinds = map[string]int{}
	}
	c.kinds[k]++
	c.texts = append(c.texts, query)
	if !inTx && isWrite(k) {
		c.commits++
	}
}

func (c *Counter) committed() {
	c.mu.Lock()
	c.commits++
	c.mu.Unlock()
}

// Wrap returns a connector whose connections count into c what they execute.
func (c *Counter) Wrap(dc driver.Connector) driver.Connector { return &connector{c: c, dc: dc} }

type connector struct {
	c  *Counter
	dc driver.Connector
}

func (w *connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := w.dc.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countedConn{c: w.c, Conn: conn}, nil
}

func (w *connector) Driver() driver.Driver { return w.dc.Driver() }
