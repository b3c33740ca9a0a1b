package console_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/console"
)

// lastRunReport is a run that queued one lost payment and parked another.
func lastRunReport() *console.RunReport {
	fin := fixedNow.Add(2 * time.Second)
	return &console.RunReport{
		Run: console.ReconcileRun{ID: 12, WindowFrom: fixedNow.Add(-48 * time.Hour), WindowTo: fixedNow, Scanned: 5, AlreadyBooked: 3,
			Queued: 1, Parked: 1, StartedAt: fixedNow, FinishedAt: &fin},
		Report: console.ReconcileReport{WindowFrom: fixedNow.Add(-48 * time.Hour), WindowTo: fixedNow, ListedFrom: fixedNow.Add(-120 * time.Hour),
			Sweeps:      []console.SweepRow{{Name: "payments", Scanned: 5, AlreadyBooked: 3, WouldQueue: 1, Park: 1}},
			WouldQueue:  []console.ReconcileItem{{Kind: "payment", ID: "pay_T3stLastQueued", AmountMinor: 1200050, Currency: "INR", CreatedAt: fixedNow.Add(-time.Hour), Note: "payment"}},
			NeedsPerson: []console.ReconcileItem{{Kind: "payment", ID: "pay_T3stLastParked", AmountMinor: 49900, Currency: "INR", Note: "parked: no invoice matched"}},
			Warnings:    []string{"the stored report keeps 500 of each list"}},
	}
}

// The Reconcile page shows the last run's saved report: its run, counts, what it queued and
// what needs a person, in the words of a run (queued), apart from a dry run's (would queue).
func TestReconcilePageShowsTheLastRunsReport(t *testing.T) {
	s := newSite(t, token)
	bearer := map[string]string{"Authorization": "Bearer " + token}
	_, body := s.do(s.client(), "GET", "/reconcile", nil, bearer)
	if !strings.Contains(body, "No run has saved a report yet.") || strings.Contains(body, `id="last-report"`) {
		t.Errorf("no saved report: the page does not say so")
	}
	s.f.last = lastRunReport()
	resp, body := s.do(s.client(), "GET", "/reconcile", nil, bearer)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /reconcile: %d", resp.StatusCode)
	}
	card := section(t, body, `id="last-run"`)
	for _, want := range []string{"Run 12 started", "st-done", `id="last-report"`, "Queued (1)", "pay_T3stLastQueued", "₹12,000.50",
		"Needs a person (1)", "pay_T3stLastParked", "₹499.00", "parked: no invoice matched", `<th class="num">queued</th>`,
		"the stored report keeps 500 of each list"} {
		if !strings.Contains(card, want) {
			t.Errorf("the last run's card lacks %q:\n%s", want, card)
		}
	}
	if strings.Contains(card, "Would queue") || strings.Contains(card, "would queue") {
		t.Errorf("a run's saved report is worded as a dry run:\n%s", card)
	}
	// A dry run beside it keeps its own words.
	s.f.report = lastRunReport().Report
	_, body = s.do(s.client(), "POST", "/reconcile/dry-run", url.Values{}, bearer)
	if dry := section(t, body, `id="report"`); !strings.Contains(dry, "Would queue (1)") || !strings.Contains(dry, `<th class="num">would queue</th>`) {
		t.Errorf("the dry run's report:\n%s", dry)
	}
	if !strings.Contains(body, `id="last-report"`) {
		t.Error("the dry run's page lost the last run's report")
	}
}

// A store that does not answer: the page still lists the runs and says why the report is
// missing, in Conceal's words.
func TestReconcilePageWhenTheReportCannotBeRead(t *testing.T) {
	f := newFake()
	f.runs = []console.ReconcileRun{{ID: 3, StartedAt: fixedNow, WindowFrom: fixedNow.Add(-time.Hour), WindowTo: fixedNow}}
	f.lastErr = errors.New("Error 1146: Table 'reconcile_runs' doesn't exist")
	c := console.New(console.Options{Backend: f, Token: token, Now: func() time.Time { return fixedNow },
		Conceal: func(error) string { return "the database did not answer" }})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/reconcile", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	c.ServeHTTP(rec, req)
	body := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(body, "the database did not answer") || strings.Contains(body, "1146") ||
		!strings.Contains(body, `<td class="num run-queued">0</td>`) {
		t.Fatalf("GET /reconcile with the report unreadable: %d\n%s", rec.Code, body)
	}
}

// section is the HTML of the element whose opening tag holds attr, up to the next <section.
func section(t *testing.T, body, attr string) string {
	t.Helper()
	i := strings.Index(body, attr)
	if i < 0 {
		t.Fatalf("no element with %s", attr)
	}
	rest := body[i:]
	if j := strings.Index(rest[1:], "<section"); j >= 0 {
		rest = rest[:j+1]
	}
	return rest
}
