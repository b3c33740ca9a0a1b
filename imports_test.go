package imports_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/razorpay-erpnext/razorpay-erpnext"

// allowed lists, for each package of the module, the module packages it may import directly:
// imports flow razorpay, frappe → mapping → connector → connector/store → cmd (DESIGN.md §3);
// each simulator imports only its own client package.
var allowed = map[string][]string{
	"razorpay":             {"internal/throttle"},
	"frappe":               {"internal/throttle"},
	"razorpay/razorpaysim": {"razorpay"},
	"frappe/erpnextsim":    {"frappe"},
	"mapping":              {"razorpay", "frappe"},
	"connector":            {"razorpay", "frappe", "mapping"},
	"connector/store":      {"connector", "razorpay", "frappe", "mapping"},
	"cmd/razorpay-erpnext": {"*"},
	// The chaos run (README "Reliability") drives the daemon as separate processes; in-process
	// it runs only the simulators and reads the Razorpay wire types.
	"cmd/chaos":           {"razorpay", "razorpay/razorpaysim", "frappe/erpnextsim"},
	"internal/sharedtest": {}, // test helper: finds shared/ beside the checkout
	// The operator console is an edge: it may read the core and the clients' types; nothing but
	// cmd imports it.
	"console":              {"connector", "connector/store", "razorpay", "frappe"},
	"internal/browsertest": {}, // test helper: starts headless Chromium for the browser tests
	"internal/throttle":    {}, // leaf: the shared pace of both API clients (429/Retry-After), knows neither API
}

// onlyImportedBy lists packages that only the named packages may import (edges of the layout).
var onlyImportedBy = map[string][]string{
	"console": {"cmd/razorpay-erpnext"},
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
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if !contains(ok, dep) && !contains(ok, "*") {
				t.Errorf("%s imports %s: breaks the import direction of DESIGN.md §3 (allowed: %v)", rel, dep, ok)
			}
			if by, edge := onlyImportedBy[dep]; edge && !contains(by, rel) {
				t.Errorf("%s imports %s, which only %v may import", rel, dep, by)
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
