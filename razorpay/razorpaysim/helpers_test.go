package razorpaysim_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// hit is one webhook request the receiver saw.
type hit struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

// receiver is a webhook endpoint that records requests and answers with respond(n) (n counts
// from 0 over all requests): a status and how long to wait before answering.
type receiver struct {
	mu      sync.Mutex
	hits    []hit
	respond func(n int, h hit) (int, time.Duration)
	srv     *httptest.Server
}

func newReceiver(t *testing.T, respond func(n int, h hit) (int, time.Duration)) *receiver {
	t.Helper()
	if respond == nil {
		respond = func(int, hit) (int, time.Duration) { return 200, 0 }
	}
	rc := &receiver{respond: respond}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h := hit{Header: r.Header.Clone(), Body: body, At: time.Now()}
		rc.mu.Lock()
		n := len(rc.hits)
		rc.hits = append(rc.hits, h)
		rc.mu.Unlock()
		status, delay := rc.respond(n, h)
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte("ignored body"))
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) Hits() []hit {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hit(nil), rc.hits...)
}

// events returns the event names of the hits in arrival order.
func (rc *receiver) events(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, h := range rc.Hits() {
		out = append(out, eventName(t, h.Body))
	}
	return out
}

func eventName(t *testing.T, body []byte) string {
	t.Helper()
	ev, err := razorpay.ParseEvent(body)
	if err != nil {
		t.Fatalf("ParseEvent: %v\n%s", err, body)
	}
	return ev.Event
}

// fastScale runs the ~23 h retry ladder in under a second.
const fastScale = 0.00001

// newSim starts a simulator delivering to rc (when non-nil) and closes it after the test.
func newSim(t *testing.T, rc *receiver, opt razorpaysim.Options) *razorpaysim.Sim {
	t.Helper()
	if rc != nil && opt.WebhookURL == "" {
		opt.WebhookURL = rc.srv.URL + "/webhooks/razorpay"
	}
	if opt.TimeScale == 0 {
		opt.TimeScale = fastScale
	}
	s := razorpaysim.New(opt)
	t.Cleanup(s.Close)
	return s
}

func wait(t *testing.T, s *razorpaysim.Sim) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := s.Wait(ctx); err != nil {
		t.Fatalf("simulator did not finish delivering: %v", err)
	}
}

func mustPay(t *testing.T, s *razorpaysim.Sim, p razorpay.Payment, opt razorpaysim.PaymentOptions) *razorpay.Payment {
	t.Helper()
	out, err := s.CreatePayment(p, opt)
	if err != nil {
		t.Fatalf("CreatePayment: %v", err)
	}
	return out
}

// apiGet calls the simulator's handler directly and decodes the JSON answer.
func apiCall(t *testing.T, s http.Handler, method, path, auth string, body any) (int, map[string]any, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req := httptest.NewRequest(method, path, rd)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	raw := w.Body.Bytes()
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("%s %s: answer is not a JSON object: %v\n%s", method, path, err, raw)
	}
	return w.Code, m, raw
}

func basic(id, secret string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+secret))
}

// errOf returns the error envelope's inner object, failing when absent.
func errOf(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error envelope in %v", m)
	}
	return e
}

// keysSorted reports whether every object in raw JSON has its keys in alphabetical order.
func keysSorted(t *testing.T, raw []byte) bool {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	type frame struct {
		obj     bool
		lastKey string
		expKey  bool
	}
	var stack []*frame
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			t.Fatalf("token: %v", err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if k, isKey := tok.(string); isKey && top != nil && top.obj && top.expKey {
			if top.lastKey != "" && strings.Compare(k, top.lastKey) < 0 {
				return false
			}
			top.lastKey, top.expKey = k, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, expKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].expKey = true
		}
	}
}
