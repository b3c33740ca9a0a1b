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
//
// Site is the façade and the composition root: its exported methods are the Go API of the
// simulator, and each responsibility is a part of its own, wired in New: the document store
// and its lock (store), users and roles (users), the ledger (ledger), message links and Link
// validation (links), each doctype's behaviour (accounts, parties, salesInvoices,
// paymentTerms, paymentRequests, paymentEntries, entryDrafts, journalEntries, bankAccounts,
// bankTransactions, reconciliation, comments), the list and query engine (queries), the REST
// and method routing (rest), the serving of a call and its concurrency model (server) and
// fault injection with the request log (faults).
type Site struct {
	opt Options

	db             *store
	users          *users
	faults         *faults
	ledger         *ledger
	links          *links
	accounts       *accounts
	parties        *parties
	invoices       *salesInvoices
	terms          *paymentTerms
	requests       *paymentRequests
	entries        *paymentEntries
	drafts         *entryDrafts
	journals       *journalEntries
	bankAccounts   *bankAccounts
	bankTxns       *bankTransactions
	reconciliation *reconciliation
	comments       *comments
	queries        *queries
	rest           *rest
	server         *server
}

// store holds the site's documents with their secondary indexes and running GL balances, the
// naming series and the last timestamp given. Its methods run with mu held: handlers run
// under it (serve.go), and so do the Go API's calls (Site.run).
type store struct {
	now    func() time.Time
	legacy bool // Version 15.44

	mu    sync.Mutex
	docs  map[string]map[string]*record // doctype → lower-case name → document
	idx   map[string]*docIndex          // doctype → secondary indexes (index.go)
	books ledgerBooks                   // running GL balances (books.go)
	// statusDay is the site date refreshStatuses last ran for.
	statusDay string
	// inserting holds the client-supplied names requests in flight are inserting (concurrency.go).
	inserting map[string]*call
	series    map[string]int // series prefix incl. year → last number
	lastTS    time.Time
}

// ist is the site time zone. India has had no DST since 1945, so a fixed zone
// avoids depending on the tz database.
var ist = time.FixedZone("IST", 5*3600+1800)

const tsLayout = "2006-01-02 15:04:05.000000"

// New builds a site holding the default company and chart (see the package
// doc) and nothing else.
func New(opt Options) *Site {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	db := &store{now: now, legacy: strings.HasPrefix(opt.Version, "15.44"), series: map[string]int{}}
	db.clearDocs()
	u := &users{db: db, opt: opt}
	lk := &links{db: db, opt: opt}
	l := &ledger{db: db, users: u, company: DefaultCompany}
	parties := &parties{db: db, links: lk}
	terms := &paymentTerms{db: db, links: lk}
	requests := &paymentRequests{db: db, links: lk}
	invoices := &salesInvoices{db: db, ledger: l, links: lk, parties: parties, terms: terms, company: DefaultCompany, now: now}
	bankAccounts := &bankAccounts{db: db, links: lk}
	bankTxns := &bankTransactions{db: db, users: u, ledger: l, links: lk, bankAccounts: bankAccounts, company: DefaultCompany}
	entries := &paymentEntries{db: db, ledger: l, links: lk, parties: parties, invoices: invoices, terms: terms,
		requests: requests, bankTxns: bankTxns, company: DefaultCompany}
	drafts := &entryDrafts{db: db, ledger: l, terms: terms, requests: requests}
	accounts := &accounts{db: db, users: u, links: lk, opt: opt, now: now, company: DefaultCompany}
	comments := &comments{db: db, users: u, links: lk}
	queries := &queries{db: db}
	s := &Site{opt: opt, db: db, users: u, ledger: l, links: lk, accounts: accounts, parties: parties,
		invoices: invoices, terms: terms, requests: requests, entries: entries, drafts: drafts,
		journals:     &journalEntries{db: db, users: u, ledger: l, links: lk, bankTxns: bankTxns, company: DefaultCompany},
		bankAccounts: bankAccounts, bankTxns: bankTxns, comments: comments, queries: queries,
		reconciliation: &reconciliation{db: db, users: u, bankTxns: bankTxns},
		faults:         &faults{opt: opt, now: now},
	}
	s.rest = &rest{db: db, users: u, ledger: l, accounts: accounts, comments: comments, drafts: drafts,
		parties: parties, entries: entries, requests: requests, queries: queries, invoices: invoices}
	s.rest.bindHooks(s)
	s.server = &server{db: db, users: u, faults: s.faults, invoices: invoices, rest: s.rest, opt: opt,
		noLock: opt.NoInvoiceLock == nil || *opt.NoInvoiceLock}
	if p := opt.Profile; p != nil && p.Workers > 0 {
		s.server.workers = make(chan struct{}, p.Workers)
	}
	db.mu.Lock()
	accounts.setupDefaults()
	db.mu.Unlock()
	return s
}

// today is the site's date, "YYYY-MM-DD".
func (db *store) today() string { return db.now().In(ist).Format("2006-01-02") }

// stamp returns a fresh site-local timestamp, strictly later than any before,
// so that `modified` changes on every write even with a frozen clock (§9 item 6).
func (db *store) stamp() string {
	t := db.now().In(ist).Truncate(time.Microsecond)
	if !t.After(db.lastTS) {
		t = db.lastTS.Add(time.Microsecond)
	}
	db.lastTS = t
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
func (db *store) seriesName(prefix string, commit bool) string {
	key := prefix + db.today()[:4] + "-"
	n := db.series[key] + 1
	if commit {
		db.series[key] = n
	}
	return fmt.Sprintf("%s%05d", key, n)
}

// noteName keeps a series ahead of a fixed name that looks like one of its
// members, so a later generated name does not collide.
func (db *store) noteName(prefix, name string) {
	if !strings.HasPrefix(name, prefix) || len(name) < len(prefix)+6 {
		return
	}
	key, num := name[:len(name)-5], name[len(name)-5:]
	if n, err := strconv.Atoi(num); err == nil && strings.HasSuffix(key, "-") && n > db.series[key] {
		db.series[key] = n
	}
}

func (db *store) get(doctype, name string) *record {
	return db.docs[doctype][strings.ToLower(strings.TrimRight(name, " "))]
}

// put stores r, replacing the document of that name, and keeps the indexes in step.
func (db *store) put(r *record) {
	m := db.docs[r.dt]
	if m == nil {
		m = map[string]*record{}
		db.docs[r.dt] = m
	}
	key := strings.ToLower(r.name())
	if old := m[key]; old != nil {
		db.unindex(old)
	}
	m[key] = r
	db.index(r)
}

func (db *store) remove(doctype, name string) {
	key := strings.ToLower(name)
	if old := db.docs[doctype][key]; old != nil {
		db.unindex(old)
	}
	delete(db.docs[doctype], key)
}

// reset empties the site and restarts its naming series.
func (db *store) reset() {
	db.clearDocs()
	db.series = map[string]int{}
}

// clearDocs empties the site: documents, indexes and ledger balances.
func (db *store) clearDocs() {
	db.docs, db.idx, db.books, db.statusDay = map[string]map[string]*record{}, map[string]*docIndex{}, ledgerBooks{}, ""
}

// all returns the documents of a doctype sorted by name (a full scan: for small doctypes and
// the /__sim/state dump, never for a per-request lookup of a large one).
func (db *store) all(doctype string) []*record {
	out := make([]*record, 0, len(db.docs[doctype]))
	for _, r := range db.docs[doctype] {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name() < out[j].name() })
	return out
}

// stampNew fills the standard fields of a new document and its rows.
func (db *store) stampNew(r *record, name, user string) {
	ts := db.stamp()
	r.f["name"], r.f["owner"], r.f["creation"], r.f["modified"], r.f["modified_by"] = name, user, ts, ts, user
	r.f["idx"] = int64(0)
	if _, ok := r.f["docstatus"]; !ok {
		r.f["docstatus"] = int64(0)
	}
	db.stampRows(r, ts, user)
}

// stampRows gives every child row its parent columns, name and timestamps.
func (db *store) stampRows(r *record, ts, user string) {
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
func (db *store) touch(r *record, user string) {
	r.f["modified"], r.f["modified_by"] = db.stamp(), user
}

// setupDefaults creates the default company, chart, fiscal year and modes of
// payment (package doc). Called with s.mu held.
func (ac *accounts) setupDefaults() {
	const admin = "Administrator"
	add := func(dt, name string, fields map[string]any) *record {
		r := newRecord(dt)
		for k, v := range fields {
			r.f[k] = v
		}
		ac.db.stampNew(r, name, admin)
		ac.db.put(r)
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
	ac.addChart(add, DefaultCompany, DefaultAbbr)
	if t := ac.opt.ClearingAccountType; t != "" {
		ac.db.get("Account", RazorpayClearing).f["account_type"] = t
	}
	ac.setupAccountsSettings()
	ac.setupSystemSettings()
	t := ac.now().In(ist)
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
