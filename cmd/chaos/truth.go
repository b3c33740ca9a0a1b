package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// paise reads Frappe decimal text ("1234.5", "-12.30", "7") as paise, exactly: more than two
// decimals that are not zero are an error, never rounded.
func paise(s string) (int64, error) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	frac = strings.TrimRight(frac, "0")
	if len(frac) > 2 {
		return 0, fmt.Errorf("amount %q has more than two decimals", s)
	}
	frac += strings.Repeat("0", 2-len(frac))
	if whole == "" {
		whole = "0"
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("amount %q: %w", s, err)
	}
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("amount %q: %w", s, err)
	}
	v := w*100 + f
	if neg {
		v = -v
	}
	return v, nil
}

// erpEntries reads every Payment Entry from the simulator's ground truth (GET /__sim/state).
func erpEntries(ctx context.Context, base string) ([]erpEntry, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/__sim/state", nil)
	if err != nil {
		return nil, err
	}
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var st struct {
		PaymentEntries []struct {
			Name        string      `json:"name"`
			Docstatus   json.Number `json:"docstatus"`
			PaymentType string      `json:"payment_type"`
			ReferenceNo string      `json:"reference_no"`
			Paid        json.Number `json:"paid_amount"`
			Received    json.Number `json:"received_amount"`
			References  []struct {
				Doctype   string      `json:"reference_doctype"`
				Name      string      `json:"reference_name"`
				Allocated json.Number `json:"allocated_amount"`
			} `json:"references"`
		} `json:"payment_entries"`
	}
	dec := json.NewDecoder(resp.Body)
	dec.UseNumber()
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("/__sim/state: %w", err)
	}
	out := make([]erpEntry, 0, len(st.PaymentEntries))
	for _, pe := range st.PaymentEntries {
		e := erpEntry{Name: pe.Name, Type: pe.PaymentType, ReferenceNo: pe.ReferenceNo, Allocated: map[string]int64{}}
		ds, err := pe.Docstatus.Int64()
		if err != nil {
			return nil, fmt.Errorf("%s docstatus: %w", pe.Name, err)
		}
		e.Docstatus = int(ds)
		if e.Paid, err = paise(pe.Paid.String()); err != nil {
			return nil, fmt.Errorf("%s paid_amount: %w", pe.Name, err)
		}
		if e.Received, err = paise(pe.Received.String()); err != nil {
			return nil, fmt.Errorf("%s received_amount: %w", pe.Name, err)
		}
		for _, r := range pe.References {
			if r.Doctype != "Sales Invoice" {
				continue
			}
			a, err := paise(r.Allocated.String())
			if err != nil {
				return nil, fmt.Errorf("%s allocation to %s: %w", pe.Name, r.Name, err)
			}
			e.Allocated[r.Name] += a
		}
		out = append(out, e)
	}
	return out, nil
}

// storeRows reads the connector's inbox and bookings tables.
func storeRows(ctx context.Context, db *sql.DB) ([]inboxRow, []bookingRow, error) {
	var inbox []inboxRow
	rows, err := db.QueryContext(ctx, `SELECT event_id, event, business_key, status, last_error FROM inbox ORDER BY id`)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var r inboxRow
		if err := rows.Scan(&r.EventID, &r.Event, &r.Key, &r.Status, &r.LastError); err != nil {
			rows.Close()
			return nil, nil, err
		}
		inbox = append(inbox, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	var bookings []bookingRow
	rows, err = db.QueryContext(ctx, `SELECT business_key, kind, state, doctype, name FROM bookings ORDER BY business_key`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var b bookingRow
		if err := rows.Scan(&b.Key, &b.Kind, &b.State, &b.Doctype, &b.Name); err != nil {
			return nil, nil, err
		}
		bookings = append(bookings, b)
	}
	return inbox, bookings, rows.Err()
}

// unfinished counts the inbox rows still pending or processing; an error when the store does
// not answer (it may be down on purpose).
func unfinished(ctx context.Context, db *sql.DB) (int, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM inbox WHERE status IN ('pending', 'processing')`).Scan(&n)
	return n, err
}
