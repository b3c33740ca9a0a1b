package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// variant is one daemon that the intake (2) and fixed-rate (3) measurements compare side by
// side on the same machine in the same run: a binary and its worker setting. The first variant
// is always the tree measured (name ""); --before REV adds that revision's build twice, as it
// is and with worker.intake_first_above 0 (the yield off: a revision without the setting
// ignores nothing, so the benchmark only sends it to the "yield off" variant).
type variant struct {
	name     string // "" for the tree measured, e.g. "before", "before, yield off"
	bin      string // razorpay-erpnext binary
	yieldOff bool   // worker.intake_first_above: 0
}

// label is how a figure of v is keyed: the engine's name, then v's name in parentheses.
func (v variant) label(engine string) string {
	if v.name == "" {
		return engine
	}
	return engine + " (" + v.name + ")"
}

// beforeVariants builds ./cmd/razorpay-erpnext at git revision rev of the module into dir and
// returns it as it is and with the yield off.
func beforeVariants(ctx context.Context, dir, rev string) ([]variant, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return nil, err
	}
	src := filepath.Join(dir, "before-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return nil, err
	}
	archive := exec.CommandContext(ctx, "sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", root, rev, src)
	if msg, err := archive.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("--before %s: git archive: %v\n%s", rev, err, msg)
	}
	bin := filepath.Join(dir, "razorpay-erpnext-before")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/razorpay-erpnext")
	build.Dir = src
	if msg, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("--before %s: go build: %v\n%s", rev, err, msg)
	}
	name := "before " + rev
	return []variant{{name: name, bin: bin}, {name: name + ", yield off", bin: bin, yieldOff: true}}, nil
}

// moduleRoot is the directory of the module the benchmark runs in.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	mod := strings.TrimSpace(string(out))
	if err != nil || mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("find the module (run from the repository, or pass --bin): %v", err)
	}
	return filepath.Dir(mod), nil
}

// rotated is vs starting at the i-th (mod len), so that each run begins with another variant.
func rotated(vs []variant, i int) []variant {
	k := i % len(vs)
	return append(append([]variant{}, vs[k:]...), vs[:k]...)
}
