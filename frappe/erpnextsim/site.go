package erpnextsim

import (
	"crypto/rand"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configures a simulated site. The zero value is usable.
type Options struct {
	// APIKey and APISecret are the credentials of the one API user (APIUser), sent as
	// "Authorization: token key:secret" or Basic base64(key:secret) (§1.2).
	// Empty values accept no credentials at all.
	APIKey, APISecret string
	// APIRoles are APIUser's roles; nil means DefaultAPIRoles (Accounts User + Sales User,
	// as the connector recordings' API user). FirstPassAPIRoles are those of the first
	// recordings.
	APIRoles []string
	// Now is the clock; default time.Now. The site's "today" is Now in
	// Asia/Kolkata, and so are creation/modified timestamps.
	Now func() time.Time
	// Version selects Frappe behaviour that changed inside v15: "15.72"
	// (default, the recorded site: a client-supplied string "name" on insert is
	// kept, and a second insert of that name is 409 DuplicateEntryError,
	// README difference 1) or "15.44" (the name is discarded, spec §1.3).
	Version string
	// NoInvoiceLock reproduces the §3.7 concurrency gap when true (the
	// default): a Payment Entry validates against the outstanding it read
	// before waiting (CommitLate) and commits without re-checking, so two
	// concurrent entries can both pass V14 and over-pay an invoice. False makes
	// the simulator re-validate under its lock at commit time.
	NoInvoiceLock *bool
	// SiteURL is the site's public base URL, used inside the links ERPNext puts in messages
	// (get_link_to_form); default DefaultSiteURL, the recorded site's.
	SiteURL string
	// SiteNames are the site names (Host without port, or X-Frappe-Site-Name) this server
	// answers for; any other name gets werkzeug's HTML 404 "<name> does not exist" (recordings
	// 34-unknown-host, 34-unknown-site-header). Empty: every name is this site (tests bind
	// httptest servers on 127.0.0.1 ports).
	SiteNames []string
	// Users are further API users besides APIUser (spec §1.2), e.g. one with the System
	// Manager role who may read Integration Requests (recordings 45-*, 54-*).
	Users []User
	// Profile gives every call a service time and bounds how many are served at once
	// (ProfileRealV15: the recorded site's times, 2 workers); nil serves at once.
	Profile *Profile
	// LockWaitTimeout is how long a write waits for a row another connection holds
	// (HoldRowLock) before 500 QueryTimeoutError; default DefaultLockWaitTimeout.
	LockWaitTimeout time.Duration
	// RequestLogLimit bounds the request log (Requests, GET /__sim/requests) to the last N
	// requests, so a long run at 100,000 documents does not grow without limit: 0 means
	// DefaultRequestLogLimit, a negative value keeps none (RequestCount still counts).
	RequestLogLimit int
	// ClearingAccountType is the account_type of RazorpayClearing: "" means "Cash", what the
	// README tells a site to use (a settlement's Journal Entry is then cleared when it is
	// reconciled with its Bank Transaction, erpnext-recorded-settlement/72-*); "Bank" is the
	// recorded site's (erpnext-recorded README "Site data"), whose entries stay uncleared
	// (70-je-get-after-reconcile) and whose receipts need a reference no and date (V9). Any
	// other account type is taken as given. PUT /api/resource/Account changes it later.
	ClearingAccountType string
}

// DefaultSiteURL is the recorded site's base URL as it appears in message links.
const DefaultSiteURL = "http://erp.localhost:8000"

// Site is one simulated ERPNext site. It is safe for concurrent use; create it
// with New.
type Site struct {
	opt     Options
	now     func() time.Time
	legacy  bool // Version 15.44
	noLock  bool
	company string

	mu    sync.Mutex
	docs  map[string]map[string]*record // doctype → lower-case name → document
	idx   map[string]*docIndex          // doctype → secondary indexes (index.go)
	books ledgerBooks                   // running GL balances (books.go)
	// statusDay is the site date refreshStatuses last ran for.
	statusDay string
	// inserting holds the client-supplied names requests in flight are inserting (concurrency.go).
	inserting map[string]*call
	// workers holds a token per call being served under Options.Profile (profile.go).
	workers chan struct{}
	series  map[string]int // series prefix incl. year → last number
	lastTS  time.Time

	fmu        sync.Mutex
	latency    time.Duration
	latencyMax time.Duration
	failN      int
	failSt     int
	failKind   Fault
	dropN      int
	dropSt     int
	dropD      time.Duration
	lateN      int
	lateD      time.Duration
	meet       *meeting // CommitTogether's rendezvous for the writes still to be planned
	lastMeet   *meeting // the latest CommitTogether's, for HeldToCommit
	reqLog     []RequestLog
	reqTotal   int
	rowLocks   map[string]time.Time // HoldRowLock: row → held until
	rl         rateLimit
}

// ist is the site time zone. India has had no DST since 1945, so a fixed zone
// avoids depending on the tz database.
var ist = time.FixedZone("IST", 5*3600+1800)

const tsLayout = "2006-01-02 15:04:05.000000"

// New builds a site holding the default company and chart (see the package
// doc) and nothing else.
func New(opt Options) *Site {
	s := &Site{opt: opt, now: opt.Now, series: map[string]int{}}
	s.clearDocs()
	if s.now == nil {
		s.now = time.Now
	}
	s.legacy = strings.HasPrefix(opt.Version, "15.44")
	if p := opt.Profile; p != nil && p.Workers > 0 {
		s.workers = make(chan struct{}, p.Workers)
	}
	s.noLock = opt.NoInvoiceLock == nil || *opt.NoInvoiceLock
	s.company = DefaultCompany
	s.mu.Lock()
	s.setupDefaults()
	s.mu.Unlock()
	return s
}

// today is the site's date, "YYYY-MM-DD".
func (s *Site) today() string { return s.now().In(ist).Format("2006-01-02") }

// stamp returns a fresh site-local timestamp, strictly later than any before,
// so that `modified` changes on every write even with a frozen clock (§9 item 6).
func (s *Site) stamp() string {
	t := s.now().In(ist).Truncate(time.Microsecond)
	if !t.After(s.lastTS) {
		t = s.lastTS.Add(time.Microsecond)
	}
	s.lastTS = t
	return t.Format(tsLayout)
}

// hashName is a 10-character random name like Frappe's child-row names.
func hashName() string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// seriesName returns the next name of a naming series ("ACC-PAY-" →
// "ACC-PAY-2026-00001") without taking it unless commit is set.
func (s *Site) seriesName(prefix string, commit bool) string {
	key := prefix + s.today()[:4] + "-"
	n := s.series[key] + 1
	if commit {
		s.series[key] = n
	}
	return fmt.Sprintf("%s%05d", key, n)
}

// noteName keeps a series ahead of a fixed name that looks like one of its
// members, so a later generated name does not collide.
func (s *Site) noteName(prefix, name string) {
	if !strings.HasPrefix(name, prefix) || len(name) < len(prefix)+6 {
		return
	}
	key, num := name[:len(name)-5], name[len(name)-5:]
	if n, err := strconv.Atoi(num); err == nil && strings.HasSuffix(key, "-") && n > s.series[key] {
		s.series[key] = n
	}
}

func (s *Site) get(doctype, name string) *record {
	return s.docs[doctype][strings.ToLower(strings.TrimRight(name, " "))]
}

// put stores r, replacing the document of that name, and keeps the indexes in step.
func (s *Site) put(r *record) {
	m := s.docs[r.dt]
	if m == nil {
		m = map[string]*record{}
		s.docs[r.dt] = m
	}
	key := strings.ToLower(r.name())
	if old := m[key]; old != nil {
		s.unindex(old)
	}
	m[key] = r
	s.index(r)
}

func (s *Site) remove(doctype, name string) {
	key := strings.ToLower(name)
	if old := s.docs[doctype][key]; old != nil {
		s.unindex(old)
	}
	delete(s.docs[doctype], key)
}

// clearDocs empties the site: documents, indexes and ledger balances.
func (s *Site) clearDocs() {
	s.docs, s.idx, s.books, s.statusDay = map[string]map[string]*record{}, map[string]*docIndex{}, ledgerBooks{}, ""
}

// all returns the documents of a doctype sorted by name (a full scan: for small doctypes and
// the /__sim/state dump, never for a per-request lookup of a large one).
func (s *Site) all(doctype string) []*record {
	out := make([]*record, 0, len(s.docs[doctype]))
	for _, r := range s.docs[doctype] {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name() < out[j].name() })
	return out
}

// stampNew fills the standard fields of a new document and its rows.
func (s *Site) stampNew(r *record, name, user string) {
	ts := s.stamp()
	r.f["name"], r.f["owner"], r.f["creation"], r.f["modified"], r.f["modified_by"] = name, user, ts, ts, user
	r.f["idx"] = int64(0)
	if _, ok := r.f["docstatus"]; !ok {
		r.f["docstatus"] = int64(0)
	}
	s.stampRows(r, ts, user)
}

// stampRows gives every child row its parent columns, name and timestamps.
func (s *Site) stampRows(r *record, ts, user string) {
	for _, f := range r.meta().fields {
		if f.typ != ftTable {
			continue
		}
		for i, row := range r.rows(f.name) {
			if row.str("name") == "" { // a new row takes its parent's owner and creation, as Frappe's set_user_and_timestamp does
				row.f["name"] = hashName()
				row.f["owner"] = r.f["owner"]
				row.f["creation"] = r.f["creation"]
			}
			row.f["modified"], row.f["modified_by"] = ts, user
			row.f["idx"] = int64(i + 1)
			row.f["docstatus"] = r.f["docstatus"]
			row.f["parent"], row.f["parentfield"], row.f["parenttype"] = r.name(), f.name, r.dt
		}
	}
}

// touch bumps modified/modified_by of a stored document (every write does).
func (s *Site) touch(r *record, user string) {
	r.f["modified"], r.f["modified_by"] = s.stamp(), user
}

// setupDefaults creates the default company, chart, fiscal year and modes of
// payment (package doc). Called with s.mu held.
func (s *Site) setupDefaults() {
	const admin = "Administrator"
	add := func(dt, name string, fields map[string]any) *record {
		r := newRecord(dt)
		for k, v := range fields {
			r.f[k] = v
		}
		s.stampNew(r, name, admin)
		s.put(r)
		return r
	}
	for _, c := range []string{"INR", "USD", "EUR", "GBP", "AED", "SGD", "AUD", "CAD", "JPY", "KWD", "BHD", "OMR"} {
		add("Currency", c, map[string]any{"currency_name": c, "enabled": int64(b2i(c == "INR" || c == "USD"))})
	}
	for _, d := range []string{"Customer", "Supplier", "Employee", "Sales Invoice", "Payment Entry", "Sales Order", "Journal Entry", "Dunning", "Account"} {
		add("DocType", d, map[string]any{"module": "Accounts"})
	}
	add("Company", DefaultCompany, map[string]any{
		"company_name": DefaultCompany, "abbr": DefaultAbbr, "default_currency": DefaultCurrency, "country": "India",
		"default_bank_account": DefaultBank, "default_cash_account": CashAccount,
		"default_receivable_account": DefaultReceivable, "default_payable_account": "Creditors - EC",
		"default_income_account": IncomeAccount, "round_off_account": "Round Off - EC",
		"write_off_account": "Write Off - EC", "exchange_gain_loss_account": "Exchange Gain/Loss - EC",
		"cost_center": CostCenter, "round_off_cost_center": CostCenter,
		"book_advance_payments_in_separate_party_account": int64(0), "reconcile_on_advance_payment_date": int64(0),
	})
	add("Cost Center", DefaultCompany, map[string]any{"cost_center_name": DefaultCompany, "company": DefaultCompany, "is_group": int64(1), "lft": int64(1), "rgt": int64(4)})
	add("Cost Center", CostCenter, map[string]any{"cost_center_name": "Main", "company": DefaultCompany, "is_group": int64(0), "parent_cost_center": DefaultCompany, "lft": int64(2), "rgt": int64(3)})
	s.addChart(add, DefaultCompany, DefaultAbbr)
	if t := s.opt.ClearingAccountType; t != "" {
		s.get("Account", RazorpayClearing).f["account_type"] = t
	}
	s.setupAccountsSettings()
	s.setupSystemSettings()
	t := s.now().In(ist)
	y := t.Year()
	if t.Month() < time.April {
		y--
	}
	add("Fiscal Year", fmt.Sprintf("%d-%d", y, y+1), map[string]any{
		"year": fmt.Sprintf("%d-%d", y, y+1), "disabled": int64(0), "is_short_year": int64(0),
		"year_start_date": fmt.Sprintf("%d-04-01", y), "year_end_date": fmt.Sprintf("%d-03-31", y+1),
	})
	for _, mop := range []struct{ name, typ, acct string }{{"Cash", "Cash", CashAccount}, {ModeOfPayment, "Bank", RazorpayClearing}} {
		row := newRecord("Mode of Payment Account")
		row.f["company"], row.f["default_account"] = DefaultCompany, mop.acct
		add("Mode of Payment", mop.name, map[string]any{"mode_of_payment": mop.name, "enabled": int64(1), "type": mop.typ, "accounts": []*record{row}})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
