// Package httpapi is the HTTP edge of the connector: the webhook endpoint and /healthz on the
// public listener, /readyz and /metrics on the admin listener. It reads requests, maps the
// core's answers to HTTP statuses in one place and writes JSON; the policy is the core's
// (intake.Receive, wire.Core.Ready).
package httpapi

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/net/netutil"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/intake"
)

// Public serves the public listener: webhookPath (the webhook, see Webhook) and /healthz
// (process up: 200 {"status":"ok"}).
func Public(in *intake.Intake, webhookPath string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(webhookPath, Webhook(in))
	mux.HandleFunc("/healthz", healthz)
	return mux
}

// PublicListener bounds l, the public listener, to 2 × in.MaxInFlight() open connections: past
// that, new connections wait in the kernel's accept queue (bounded by its backlog) instead of
// each holding a goroutine and its buffers in the process (about 30 KiB each, which is what an
// overloaded daemon's memory was made of). Idle keep-alive connections count until the
// server's idle timeout closes them.
func PublicListener(l net.Listener, in *intake.Intake) net.Listener {
	return netutil.LimitListener(l, 2*in.MaxInFlight())
}

// Webhook answers (DESIGN.md §4 steps 1–2):
//   - 405 for anything but POST;
//   - 503 with "Retry-After: 1" at once, the body unread, nothing stored and the connection
//     closed after the answer, when
//     in.MaxInFlight() webhook requests are already being served by this handler (server.max_in_flight;
//     counted as outcome "overloaded"): an overloaded process sheds load instead of queueing
//     without limit, and Razorpay retries (spec/razorpay.md §1.4);
//   - 413 for a body over intake.MaxWebhookBody;
//   - 401 when X-Razorpay-Signature is missing or matches no configured secret (nothing stored);
//   - 400 when X-Razorpay-Event-Id is missing or not a Razorpay event id (intake.ErrBadEventID);
//   - 503 when the store cannot record the event (Razorpay retries), also when the sender
//     disconnected meanwhile (intake.ErrSenderGone; nobody reads that answer);
//   - 200 {"status":"accepted"} when stored, 200 {"status":"duplicate"} when the
//     (account id, event id) pair was stored before. A body that verifies but does not parse is
//     stored as dead with the reason and also answered 200.
//
// Nothing is sent to ERPNext or Razorpay inside the request.
func Webhook(in *intake.Intake) http.Handler {
	slots := make(chan struct{}, max(in.MaxInFlight(), 1))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed"})
			return
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		default:
			in.RefuseOverloaded()
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Connection", "close") // an idle keep-alive connection holds memory too
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "too many webhooks in flight, retry later"})
			return
		}
		body, err := readBody(w, r)
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				in.RefuseTooLarge()
				writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": "body exceeds 1 MiB"})
				return
			}
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "could not read body"})
			return
		}
		dup, err := in.Receive(r.Context(), intake.Delivery{Body: body, Signature: r.Header.Get("X-Razorpay-Signature"),
			EventID: r.Header.Get("X-Razorpay-Event-Id"), Remote: r.RemoteAddr})
		switch {
		case errors.Is(err, intake.ErrBadSignature):
			writeRaw(w, http.StatusUnauthorized, answerBadSignature)
		case errors.Is(err, intake.ErrBadEventID):
			writeRaw(w, http.StatusBadRequest, answerBadEventID)
		case err != nil:
			writeRaw(w, http.StatusServiceUnavailable, answerUnavailable)
		case dup:
			writeRaw(w, http.StatusOK, answerDuplicate)
		default:
			writeRaw(w, http.StatusOK, answerAccepted)
		}
	})
}

// Readiness answers /readyz (wire.Core.Ready): ok, its status and, when not ready,
// the reason.
type Readiness interface {
	Ready(ctx context.Context) (ok bool, status, reason string)
}

// Admin serves the private listener: /readyz (200 {"status":"ready"} when c is ready, else
// 503 with its status and reason), /healthz, and /metrics (Prometheus, the series of metrics;
// behind adminToken when one is set).
func Admin(c Readiness, metrics prometheus.Gatherer, adminToken string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		ok, status, reason := c.Ready(r.Context())
		switch {
		case ok:
			writeJSON(w, http.StatusOK, map[string]string{"status": status})
		case reason != "":
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": status, "reason": reason})
		default:
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": status})
		}
	})
	mux.HandleFunc("/healthz", healthz)
	mux.Handle("/metrics", RequireToken(adminToken, promhttp.HandlerFor(metrics, promhttp.HandlerOpts{})))
	return mux
}

func healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// RequireToken guards h with token when one is configured: the request must carry
// "Authorization: Bearer <token>" (compared in constant time), else 401. An empty token leaves
// h open.
func RequireToken(token string, h http.Handler) http.Handler {
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

// The webhook's answers, encoded once (as writeJSON would encode them).
var (
	answerAccepted     = []byte(`{"status":"accepted"}` + "\n")
	answerDuplicate    = []byte(`{"status":"duplicate"}` + "\n")
	answerBadSignature = []byte(`{"error":"signature verification failed"}` + "\n")
	answerBadEventID   = []byte(`{"error":"missing or invalid X-Razorpay-Event-Id header"}` + "\n")
	answerUnavailable  = []byte(`{"error":"store unavailable, retry later"}` + "\n")
)

// presizeLimit is the largest Content-Length readBody allocates for before the bytes arrive:
// a webhook is a few KiB, and an unauthenticated sender announcing 1 MiB and trickling it must
// not make max_in_flight requests hold 1 MiB each up front.
const presizeLimit = 64 << 10

// readBody reads the request body, at most intake.MaxWebhookBody bytes (a longer one is a
// *http.MaxBytesError), into one buffer sized from Content-Length when the sender gave one of
// at most presizeLimit.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	src := http.MaxBytesReader(w, r.Body, intake.MaxWebhookBody)
	n := r.ContentLength
	if n <= 0 || n > presizeLimit {
		return io.ReadAll(src)
	}
	buf := make([]byte, n, n+1)
	if _, err := io.ReadFull(src, buf); err != nil {
		return nil, err
	}
	var extra [1]byte // a body longer than it said: read the rest the ordinary way
	if k, err := src.Read(extra[:]); k > 0 {
		rest, err := io.ReadAll(src)
		return append(append(buf, extra[0]), rest...), err
	} else if err != nil && err != io.EOF {
		return nil, err
	}
	return buf, nil
}

func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
