// Package sharedtest locates the workspace's shared reference folder for tests: the real ERPNext
// recordings and the Razorpay sample payloads live in shared/ beside the checkout (CI lays a
// copy there), not in this repository.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Env names a folder that holds shared/ content when it is not beside the checkout.
const Env = "RAZORPAY_ERPNEXT_SHARED"

// Dir returns the path of shared/<parts…>. When the folder is missing the test is skipped,
// except under CI (env CI set), where a missing reference folder is a failure: those tests
// must run there.
func Dir(t testing.TB, parts ...string) string {
	t.Helper()
	root := os.Getenv(Env)
	if root == "" {
		root = filepath.Join(moduleRoot(), "..", "shared")
	}
	dir := filepath.Join(append([]string{root}, parts...)...)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("shared reference folder %s is missing under CI: %v", dir, err)
		}
		t.Skipf("shared reference folder %s not found: put the workspace's shared/ beside the checkout or set %s", dir, Env)
	}
	return dir
}

// moduleRoot walks up from the working directory (a package's folder under go test) to the
// folder holding go.mod.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}
