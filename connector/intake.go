package connector

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
)

// MaxWebhookBody is the largest webhook body accepted (1 MiB); larger bodies get 413.
const MaxWebhookBody = 1 << 20

const maxEventIDLen = 64

// Intake answers (DESIGN.md §4 steps 1–2):
//   - 405 for anything but POST;
//   - 413 for a body over MaxWebhookBody;
//   - 401 when X-Razorpay-Signature is missing or matches no configured secret (nothing stored);
//   - 400 when X-Razorpay-Event-Id is missing or longer than 64 characters;
//   - 503 when the store cannot record the event (Razorpay retries);
//   - 200 {"status":"accepted"} when stored, 200 {"status":"duplicate"} when the
//     (account id, event id) pair was stored before. A body that verifies but does not parse is
//     stored as dead with the reason and also answered 200.
//
// Nothing is sent to ERPNext or Razorpay inside the request.
func (c *Connector) ServeWebhook(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed"})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxWebhookBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			c.countWebhook("", "too_large")
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": "body exceeds 1 MiB"})
			return
		}
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "could not read body"})
		return
	}
	if err := razorpay.VerifySignature(body, r.Header.Get("X-Razorpay-Signature"), c.cfg.Razorpay.WebhookSecrets); err != nil {
		c.countWebhook("", "bad_signature")
		c.log.Warn().Str("remote", r.RemoteAddr).Str("reason", err.Error()).Msg("webhook refused: signature")
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "signature verification failed"})
		return
	}
	eventID := strings.TrimSpace(r.Header.Get("X-Razorpay-Event-Id"))
	if eventID == "" || len(eventID) > maxEventIDLen {
		c.countWebhook("", "malformed")
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "missing or invalid X-Razorpay-Event-Id header"})
		return
	}
	now := c.now().UTC()
	row := &InboxEvent{EventID: eventID, RawBody: body, ReceivedAt: now, Status: StatusPending, NextAttemptAt: now}
	ev, perr := razorpay.ParseEvent(body)
	if perr != nil {
		row.Status = StatusDead
		row.LastError = "webhook body does not parse: " + perr.Error()
		row.AccountID = c.cfg.Razorpay.AccountID
	} else {
		row.AccountID = ev.AccountID
		if row.AccountID == "" {
			row.AccountID = c.cfg.Razorpay.AccountID
		}
		row.Event = ev.Event
		row.BusinessKey = ev.BusinessKey()
		if ev.CreatedAt > 0 {
			t := time.Unix(ev.CreatedAt, 0).UTC()
			row.EventCreatedAt = &t
		}
	}
	inserted, err := c.store.InsertEvent(r.Context(), row)
	if err != nil {
		c.countWebhook(row.Event, "store_unavailable")
		c.log.Error().Err(err).Str("event_id", eventID).Msg("webhook not stored: store unavailable")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "store unavailable, retry later"})
		return
	}
	if !inserted {
		c.countWebhook(row.Event, "duplicate")
		writeJSON(w, http.StatusOK, map[string]string{"status": "duplicate"})
		return
	}
	if perr != nil {
		c.countWebhook("", "malformed")
		c.log.Warn().Str("event_id", eventID).Str("reason", row.LastError).Msg("webhook stored as dead")
	} else {
		c.countWebhook(row.Event, "accepted")
		c.Wake()
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "accepted"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// PublicHandler serves the public listener: the webhook path and /healthz (process up).
func (c *Connector) PublicHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(c.cfg.WebhookPath, c.ServeWebhook)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	return mux
}

// AdminHandler serves the private listener: /metrics (Prometheus; behind admin_token when one is
// set), /readyz answers 200 when the store is reachable and takes a write
// with migrations applied and work is not paused by a configuration fault, else 503 with the
// reason.
func (c *Connector) AdminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := c.store.Ping(r.Context()); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "store unavailable"})
			return
		}
		// Reachable is not enough: a webhook is only acknowledged once stored, so the store must
		// take a write (a disk full or a read-only file answers reads but refuses writes).
		now := c.now()
		probe := "readyz:" + c.instance
		if _, err := c.store.AcquireLock(r.Context(), probe, c.instance, now, now.Add(time.Minute)); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "store not writable"})
			return
		}
		_ = c.store.ReleaseLock(r.Context(), probe, c.instance)
		if paused, why := c.Paused(); paused {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "paused", "reason": why})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.Handle("/metrics", c.requireAdminToken(c.metrics.handler()))
	return mux
}

// requireAdminToken guards an admin endpoint with admin_token when one is configured: the
// request must carry "Authorization: Bearer <token>" (compared in constant time), else 401.
// /healthz and /readyz stay open for probes.
func (c *Connector) requireAdminToken(h http.Handler) http.Handler {
	token := c.cfg.AdminToken
	if token == "" {
		return h
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="razorpay-erpnext admin"`)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "admin token required"})
			return
		}
		h.ServeHTTP(w, r)
	})
}
