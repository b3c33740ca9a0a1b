package store_test

import (
	"testing"
	"time"
	"unicode/utf8"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
)

// textCases: every string the store writes is valid UTF-8. MariaDB refuses
// invalid utf8mb4 in a text column, so without the store's escaping these inserts fail there
// (and a webhook would be answered 503 on every retry); the body bytes are kept exactly.
var textCases = []contractCase{
	{"InvalidUTF8TextIsStoredEscapedAndTheBodyExactly", func(t *testing.T, b backend) {
		db := b.fresh(t)
		body := []byte("\xff\xfe{}")
		e := &connector.InboxEvent{AccountID: "acc_T3stAcc0unt001", EventID: "T3stEvtBad0001", Event: "payment.\xffcaptured",
			BusinessKey: "pay_\xfe1", RawBody: body, ReceivedAt: t0, Status: connector.StatusDead,
			LastError: "webhook body does not parse: \xff\xfe{} \xc3(cut é)"}
		mustInsert(t, db, e)
		got := mustGet(t, db, e.ID)
		want := map[string][2]string{
			"event":        {got.Event, `payment.\xffcaptured`},
			"business key": {got.BusinessKey, `pay_\xfe1`},
			"last error":   {got.LastError, `webhook body does not parse: \xff\xfe{} \xc3(cut é)`},
			"raw body":     {string(got.RawBody), "\xff\xfe{}"},
		}
		for what, gw := range want {
			if gw[0] != gw[1] {
				t.Errorf("%s = %q; want %q", what, gw[0], gw[1])
			}
		}
		if got.Status != connector.StatusDead || e.BusinessKey != `pay_\xfe1` {
			t.Errorf("status %s, caller's row key %q; want dead and the escaped key", got.Status, e.BusinessKey)
		}
		rows, err := db.FindEvents(ctx, "pay_\xfe1") // the same bytes find the row they stored
		wantNoErr(t, "FindEvents", err)
		if len(rows) != 1 || rows[0].ID != e.ID {
			t.Fatalf("FindEvents(invalid key) = %d rows; want the row", len(rows))
		}
	}},
	{"InvalidUTF8ReasonsOfLaterWritesAreEscaped", func(t *testing.T, b backend) {
		db := b.fresh(t)
		e := mustInsert(t, db, newEvent("acc_T3stAcc0unt001", "T3stEvtBad0002", "pay_T3stPayCard001", t0))
		wantNoErr(t, "SetEventStatus", db.SetEventStatus(ctx, e.ID, connector.StatusParked, "parked: \x80 by hand", t0))
		if got := mustGet(t, db, e.ID).LastError; got != `parked: \x80 by hand` {
			t.Errorf("reason = %q; want the byte escaped", got)
		}
		wantNoErr(t, "SetEventStatus", db.SetEventStatus(ctx, e.ID, connector.StatusPending, "", t0))
		c := mustClaim(t, db, "owner-1", t0.Add(time.Second), time.Minute)
		wantNoErr(t, "CompleteEvent", db.CompleteEvent(ctx, c.ID, "owner-1", t0.Add(2*time.Second), connector.Outcome{
			Status: connector.StatusParked, LastError: "ERPNext said \xe2\x82 no", ResultName: "ACC-\xffPAY"}))
		got := mustGet(t, db, e.ID)
		if got.LastError != `ERPNext said \xe2\x82 no` || got.ResultName != `ACC-\xffPAY` || !utf8.ValidString(got.LastError) {
			t.Errorf("outcome stored as %q / %q; want the bytes escaped", got.LastError, got.ResultName)
		}
	}},
}
