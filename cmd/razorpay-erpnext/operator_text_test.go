package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// Operator text with invalid UTF-8 — a reason typed in a Latin-1 terminal, bytes pasted from a
// binary — is stored with U+FFFD in place of the bad bytes, on MariaDB as on SQLite: the CLI's
// `events dismiss --reason $'bad\xff'` exits 0 and the console's dismiss answers 303, where
// MariaDB used to refuse the row (error 1366) and the page showed its text with a 503.
func TestInvalidUTF8InOperatorText(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, driver string) {
		e, cfg, d := startWithConsole(t, driver)
		path, envs := e.writeConfig(cfg, "")
		e.deliver(d, "T3stEvUTF8Cli1", e.payment("payment.captured", "pay_T3stUTF8Cli001", 50000, map[string]string{"invoice": "NOPE-1"}))
		e.deliver(d, "T3stEvUTF8Con1", e.payment("payment.captured", "pay_T3stUTF8Con001", 50000, map[string]string{"invoice": "NOPE-2"}))
		e.waitIdle(d)

		code, out, errs := run(t, envs, "events", "dismiss", "T3stEvUTF8Cli1", "--reason", "bad\xff", "--config", path)
		if code != exitOK || !strings.Contains(out, "parked → dismissed") {
			t.Fatalf("events dismiss --reason $'bad\\xff': exit %d\n%s%s", code, out, errs)
		}
		rows, _ := d.db.FindEvents(context.Background(), "T3stEvUTF8Cli1")
		if len(rows) != 1 || rows[0].LastError != "dismissed by an operator: bad\uFFFD" {
			t.Errorf("stored reason %q, want %q", rows[0].LastError, "dismissed by an operator: bad\uFFFD")
		}

		rows, _ = d.db.FindEvents(context.Background(), "T3stEvUTF8Con1")
		bearer := map[string]string{"Authorization": "Bearer " + testAdminToken}
		code, _, body := adminGet(t, d, "POST", fmt.Sprintf("/events/%d/dismiss", rows[0].ID), bearer, url.Values{"reason": {"bad\xff\xfe"}})
		if code != http.StatusSeeOther {
			t.Fatalf("console dismiss: %d\n%s", code, body)
		}
		rows, _ = d.db.FindEvents(context.Background(), "T3stEvUTF8Con1")
		if rows[0].Status != connector.StatusDismissed || !strings.HasSuffix(rows[0].LastError, ": bad\uFFFD") { // a run of bad bytes is one U+FFFD
			t.Errorf("console dismiss stored %s %q", rows[0].Status, rows[0].LastError)
		}
	})
}

// A store failure is shown on a console page as what it means; the database's own text stays in
// the log.
func TestConcealStoreError(t *testing.T) {
	raw := fmt.Errorf("%w: set event 7 status dismissed: Error 1366 (22007): Incorrect string value: '\\xFF\\xFE' for column `t`.`inbox`.`last_error`", connector.ErrStoreUnavailable)
	if got := concealStoreError(raw); got == "" || strings.Contains(got, "1366") || strings.Contains(got, "inbox") {
		t.Errorf("concealStoreError = %q", got)
	}
	if got := concealStoreError(errors.New("ERPNext 417 ValidationError: Posting date is in a closed period")); got != "" {
		t.Errorf("an ERPNext message is concealed: %q", got)
	}
}
