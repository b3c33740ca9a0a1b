package imports_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/razorpay-erpnext/razorpay-erpnext"

// allowed lists, for each package of the module, exactly the module packages it imports
// directly: imports flow razorpay, frappe → mapping → connector → connector/store → cmd
// (DESIGN.md §3); a simulator may import only its own client package and internal leaves. The table is exact: an
// import it does not list fails, and so does an edge it lists that no longer exists.
var allowed = map[string][]string{
	"razorpay":             {"internal/redact", "internal/throttle"},
	"frappe":               {"internal/redact", "internal/throttle"},
	"razorpay/razorpaysim": {"razorpay", "internal/sleep"},
	"frappe/erpnextsim":    {}, // speaks the REST API from the recordings; needs not even the client
	"mapping":              {"razorpay"},
	// The configuration file is read at the edge: the core runs with a Config, never parses one.
	"connector/config": {"internal/redact"},
	"connector":        {"connector/config", "razorpay", "frappe", "mapping"},
	// Webhook intake: verify, store, wake; given the secrets, the store's insert and counters.
	"connector/intake": {"connector", "connector/config", "razorpay"},
	// The HTTP edge of the core: webhook intake, probes, /metrics.
	"connector/httpapi": {"connector/intake"},
	// The client edge: ERPNext and Razorpay as the core calls them (timed, every failure a
	// *connector.Failure, a refused credential ending or keeping a pause), and their pace.
	"connector/edge": {"connector", "frappe", "razorpay"},
	// The Prometheus series, counting what the core, intake, the edge and reconcile tell it.
	"connector/metrics": {"connector", "connector/edge", "razorpay"},
	// The wiring of one core: metrics, the client edge, the booking, the Connector, and the
	// dependencies of intake, the operator actions and reconcile. cmd and tests build through it.
	"connector/wire": {"connector", "connector/booking", "connector/edge", "connector/explain", "connector/intake", "connector/metrics", "connector/operator", "connector/reconcile", "connector/worker"},
	// What a person does to the inbox and reads of it, and retention: on the store it is given.
	"connector/operator": {"connector", "frappe", "razorpay"},
	// The booking kernel: claims, document locks, the site's facts, lookup before create, apply
	// of a Plan, on the core's vocabulary and ports. Below every job.
	"connector/kernel": {"connector", "frappe", "mapping", "razorpay"},
	// The settlement job (a Journal Entry per settlement, the bank match) on the kernel.
	"connector/settlement": {"connector", "connector/kernel", "frappe", "mapping", "razorpay"},
	// The booking: one job per route on the kernel, settlement's included, built through
	// connector.Options.Booking (booking.New, by connector/wire).
	"connector/booking": {"connector", "connector/kernel", "connector/settlement", "frappe", "mapping", "razorpay"},
	// The workers: the claim loop, leases and their heartbeat, the outcome written and the
	// park comment that follows a parked one (through the Account's ERPNext client); built
	// through connector.Options.Worker (worker.New).
	"connector/worker": {"connector", "connector/config", "frappe", "mapping", "razorpay", "internal/sleep"},
	// The dry-run session: the worker's pipeline (the booking's Decide, the outcome policy)
	// run by reading only, for explain and the console; built by connector/wire.
	"connector/explain": {"connector", "razorpay"},
	"connector/store":   {"connector", "internal/redact"},
	// check validates the configuration against the site: it reads ERPNext and Razorpay only.
	"connector/check": {"connector", "frappe", "razorpay"},
	// Reconcile is a process of the core of its own, given what it uses (reconcile.Deps): the
	// Account, a narrowed store, the settlement report, funcs of the worker.
	"connector/reconcile":  {"connector", "frappe", "razorpay", "internal/sleep"},
	"cmd/razorpay-erpnext": {"*"},
	// The chaos run (README "Reliability") drives the daemon as separate processes; in-process
	// it runs only the simulators and reads the Razorpay wire types.
	"cmd/chaos": {"razorpay", "razorpay/razorpaysim", "frappe/erpnextsim"},
	// The benchmark (README "Performance") runs the daemon as its own process; in-process it
	// runs the simulators, the floor server on the store, and the direct client on frappe.
	"cmd/benchmark":       {"connector", "connector/store", "frappe", "frappe/erpnextsim", "razorpay", "razorpay/razorpaysim", "internal/sleep"},
	"internal/sharedtest": {}, // test helper: finds shared/ beside the checkout
	"internal/pgtest":     {}, // test helper: a PostgreSQL database of its own per test (TEST_POSTGRES_DSN)
	// Test helper of the core's packages: the simulated site every booking test starts from.
	"connector/internal/sitetest": {"connector", "connector/config", "frappe", "frappe/erpnextsim"},
	// The operator console is an edge: cmd hands it the core's answers through its Backend
	// interface; it reads only Razorpay's money helpers itself. Nothing but cmd imports it.
	"console":              {"internal/redact", "razorpay"},
	"internal/browsertest": {"internal/testtime"}, // test helper: starts headless Chromium for the browser tests
	"internal/shape":       {},                    // go run ./internal/shape: size limits and coverage
	"internal/sqlcount":    {},                    // test helper: counts the store's statements and commits at the driver edge
	"internal/redact":      {},                    // leaf: removes secrets from text without mangling words, for the clients, the store and the console
	"internal/testtime":    {},                    // test helper: waits on conditions with generous bounds, -short skips
	"internal/throttle":    {"internal/sleep"},    // the shared pace of both API clients (429/Retry-After), knows neither API
	"internal/sleep":       {},                    // leaf: the one context-aware sleep
}

// onlyImportedBy lists packages that only the named packages may import (edges of the layout).
var onlyImportedBy = map[string][]string{
	"console":              {"cmd/razorpay-erpnext"},
	"connector/httpapi":    {"cmd/razorpay-erpnext"},
	"connector/intake":     {"connector/httpapi", "connector/wire", "cmd/razorpay-erpnext"},
	"connector/operator":   {"connector/wire", "cmd/razorpay-erpnext"},
	"connector/booking":    {"connector/wire"},
	"connector/worker":     {"connector/wire"},
	"connector/explain":    {"connector/wire"},
	"connector/kernel":     {"connector/booking", "connector/settlement"},
	"connector/settlement": {"connector/booking"},
	"connector/reconcile":  {"connector/wire", "cmd/razorpay-erpnext"},
	"connector/metrics":    {"connector/wire"},
	"connector/edge":       {"connector/metrics", "connector/wire", "cmd/razorpay-erpnext"},
	"connector/wire":       {"cmd/razorpay-erpnext"},
}

func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if p.ImportPath == module {
			continue
		}
		seen++
		ok, known := allowed[rel]
		if !known {
			t.Errorf("package %s is not in the layout of DESIGN.md §3; add it to this test with its allowed imports", rel)
			continue
		}
		used := map[string]bool{}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			used[dep] = true
			if !contains(ok, dep) && !contains(ok, "*") {
				t.Errorf("%s imports %s: breaks the import direction of DESIGN.md §3 (allowed: %v)", rel, dep, ok)
			}
			if by, edge := onlyImportedBy[dep]; edge && !contains(by, rel) {
				t.Errorf("%s imports %s, which only %v may import", rel, dep, by)
			}
		}
		for _, dep := range ok {
			if dep != "*" && !used[dep] {
				t.Errorf("%s no longer imports %s: remove the edge from this table (it lists exactly the edges that exist)", rel, dep)
			}
		}
	}
	if seen < 5 {
		t.Fatalf("go list saw only %d packages", seen)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
