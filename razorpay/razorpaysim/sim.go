package razorpaysim

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/razorpay-erpnext/razorpay-erpnext/internal/sleep"
)

// Options configures a Sim. The zero value is usable: an API without authentication, no
// webhook delivery, real time, time.Now and ids random per Sim.
type Options struct {
	// KeyID and KeySecret are the API credentials checked with HTTP Basic auth
	// (spec/razorpay.md §5.1); when both are empty the API accepts any request.
	KeyID, KeySecret string
	// WebhookURL is where webhooks are POSTed. Only loopback addresses are ever dialled
	// (127.0.0.0/8, ::1, "localhost"); any other target fails every attempt. Empty: no delivery.
	WebhookURL string
	// WebhookSecret signs webhook bodies (X-Razorpay-Signature); empty sends no signature
	// header, as Razorpay does for a webhook without a secret (spec/razorpay.md §1.2).
	// WebhookURL and WebhookSecret make the endpoint with ID "default", subscribed to every
	// event.
	WebhookSecret string
	// Webhooks are further webhook endpoints of test mode (spec/razorpay.md §1.6, checklist
	// item 9): every event goes, with the same event id and bytes, to the default endpoint and
	// to each of these whose Events filter lets it through; each is signed with its own secret.
	Webhooks []Webhook
	// AccountEmail receives the auto-disable alert of a webhook without an AlertEmail
	// (spec/razorpay.md §1.8); default "owner@" + AccountID + ".example".
	AccountEmail string
	// LiveKeyID and LiveKeySecret turn on live mode (spec/razorpay.md §1.10, checklist item
	// 15): a second, disjoint set of entities and events reached with these credentials, while
	// KeyID/KeySecret reach test mode. Drive live mode through Live() or /__sim/live/….
	LiveKeyID, LiveKeySecret string
	// LiveWebhookURL, LiveWebhookSecret and LiveWebhooks are live mode's webhook endpoints, as
	// WebhookURL, WebhookSecret and Webhooks are test mode's; they are used only with live keys.
	LiveWebhookURL, LiveWebhookSecret string
	LiveWebhooks                      []Webhook
	// AccountID is the envelope's account_id; default "acc_" + 14 random characters.
	AccountID string
	// TimeScale compresses the retry ladder (spec/razorpay.md §1.5) and SettleEvery: 1 (or 0)
	// is real time, 0.001 runs the ~24 h ladder in ~82 s, 0.00001 in under a second.
	TimeScale float64
	// Now is the simulator's clock for created_at values, list lag and settlement dates;
	// default time.Now. Delivery waits always use real (scaled) time.
	Now func() time.Time
	// Seed makes ids, shuffles, contact formats and injected 5xx answers reproducible: two
	// Sims with the same non-zero Seed and the same calls make the same ids. 0 (the default)
	// draws a seed per Sim from crypto/rand, so two simulators started one after the other
	// never hand out the same payment ids.
	Seed int64
	// DeliveryTimeout is the success deadline of one webhook attempt (spec/razorpay.md §1.4);
	// default 5 s of real time, not scaled.
	DeliveryTimeout time.Duration
	// SettleEvery runs the settlement schedule at this (scaled) interval; 0 settles only on
	// demand (Settle, SettleWith, POST /__sim/settlements). Each tick first processes every
	// settlement left created or failed, then settles what is due (see SettleDelay) as one
	// processed settlement, or a failed one while Faults.FailSettlements lasts.
	SettleEvery time.Duration
	// SettleDelay is the schedule's cut-off, T+2 style: a tick settles only payments captured
	// at least this long before now on the simulator clock (Now, not scaled). Refunds,
	// adjustments and transfers are settled at the first tick after them.
	SettleDelay time.Duration
	// FXRates gives INR paise per major unit of a currency (e.g. "USD": 8525 = ₹85.25), used
	// for base_amount of non-INR payments; missing currencies use defaultFX or 10000.
	FXRates map[string]int64
	// Quirks are the representation options of checklist item 4.
	Quirks Quirks
	// Faults are the injected faults in force at start; change them with SetFaults or
	// PUT /__sim/faults.
	Faults Faults
}

// Quirks selects optional oddities of Razorpay's JSON (spec/razorpay.md §3 typing rules,
// checklist item 4). Notes rendered as [] when empty (null on payment links), 0 instead of null
// on link timestamps, "" in card payments' error fields and user_id, and mixed contact formats
// ("+919000090000", "9000090000", "+9000090000") are always on.
type Quirks struct {
	CapturedAsString bool `json:"captured_as_string"` // "captured": "1"/"0" instead of true/false
	EscapeSlashes    bool `json:"escape_slashes"`     // every "/" in raw JSON written as "\/"
	ExtraFields      bool `json:"extra_fields"`       // unknown extras: reward, provider, gateway_provider
	// DoublePlusContact adds "++919900000000" to the formats a generated contact is drawn
	// from: the typo that appears in Razorpay's own documentation samples (spec/razorpay.md §3,
	// "contact is free text"). Off by default: it is an oddity to test a decoder against, not
	// what a payment normally carries.
	DoublePlusContact bool `json:"double_plus_contact"`
}

// Ordering is the order in which the events of one business fact are first delivered
// (checklist item 11).
type Ordering string

// Orderings.
const (
	InOrder  Ordering = "in_order" // authorized, captured, order.paid, payment_link.paid; refund created then final
	Reversed Ordering = "reversed" // the reverse: captured before authorized, order.paid before captured, refund.processed before refund.created
	Shuffled Ordering = "shuffled" // a seeded random permutation
)

// Faults are injected failures (checklist items 1, 10, 11, 20). The zero value injects nothing.
type Faults struct {
	WrongSecret    bool     `json:"wrong_secret"`    // sign new events with a secret that is not configured
	PreviousSecret bool     `json:"previous_secret"` // sign new events with the secret in force before the last rotation
	CorruptBody    bool     `json:"corrupt_body"`    // change one byte of the body after signing
	Duplicate      bool     `json:"duplicate"`       // deliver every event once more after a 2xx (at-least-once)
	Ordering       Ordering `json:"ordering"`        // default Ordering of new events ("" = InOrder)

	ErrorRate  float64       `json:"error_rate"`  // 0..1: chance an API request is answered 500, 502 or 504
	RateLimit  float64       `json:"rate_limit"`  // token bucket refill in requests per second; 0 = unlimited
	Burst      int           `json:"burst"`       // token bucket size; default 1 when RateLimit > 0
	RetryAfter int           `json:"retry_after"` // seconds in Retry-After on 429; 0 = no header (Razorpay documents none)
	FailNext   []int         `json:"fail_next"`   // statuses answered to the next API requests, one each (e.g. [429, 500, 502])
	ListLag    time.Duration `json:"list_lag"`    // entities younger than this (simulator clock) are missing from GET /v1/payments, /v1/refunds, /v1/settlements and the recon rows

	FailSettlements int `json:"fail_settlements"` // the next scheduled settlements are made failed (processed at the following tick), one each
}

// Sim is an in-memory Razorpay account: the REST API subset of spec/razorpay.md §5 and a
// webhook sender following §1, driven by CreatePayment, CreateRefund, Capture, Settle,
// CreateDispute and ResolveDispute (or the control API, see ServeHTTP). It is safe for concurrent use; Close stops every delivery
// goroutine.
//
// Sim is the façade of one mode's account and wires its parts: the entities and their lock
// (state), webhook endpoints and delivery (webhooks), the REST API (api) and its rendering
// (renderer), the control API (control), payments, refunds, disputes, settlements, and the
// time scale and goroutines (lifetime).
type Sim struct {
	opt    Options
	mode   string // "test" or "live"
	cancel context.CancelFunc
	live   *Sim // the live-mode account of a test-mode Sim; nil when not configured

	st          *state
	hooks       *webhooks
	api         *api
	render      *renderer
	control     *control
	payments    *payments
	refunds     *refunds
	disputes    *disputes
	settlements *settlements
	life        *lifetime
}

// state is one account's entities, faults and random stream, under mu.
type state struct {
	mu             sync.Mutex
	rnd            *rand.Rand
	seq            int64
	faults         Faults
	tokens         float64
	tokensAt       time.Time
	payments       map[string]*payRec
	payList        *listing[*payRec]
	orders         map[string]*orderRec
	refunds        map[string]*refundRec
	refundList     *listing[*refundRec]
	paymentRefunds map[string][]*refundRec // a payment's refunds, oldest first
	links          map[string]*linkRec
	disputes       map[string]*disputeRec
	settlements    map[string]*settleRec
	settleList     *listing[*settleRec]
	due            due // what the next settlement pays out or deducts
}

// lifetime is the time scale of an account's waits and the goroutines it runs: they end with
// ctx and Close waits for them on wg.
type lifetime struct {
	scale float64
	ctx   context.Context
	wg    sync.WaitGroup
}

// New returns a running Sim. Call Close when done. With Options.LiveKeyID or LiveKeySecret
// set it also runs a live-mode account, reached through Live.
func New(opt Options) *Sim {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.DeliveryTimeout <= 0 {
		opt.DeliveryTimeout = 5 * time.Second
	}
	s := newMode(opt, "test")
	if opt.LiveKeyID != "" || opt.LiveKeySecret != "" {
		lo := opt
		lo.AccountID, lo.AccountEmail = s.opt.AccountID, s.opt.AccountEmail
		lo.KeyID, lo.KeySecret = opt.LiveKeyID, opt.LiveKeySecret
		lo.WebhookURL, lo.WebhookSecret, lo.Webhooks = opt.LiveWebhookURL, opt.LiveWebhookSecret, opt.LiveWebhooks
		lo.LiveKeyID, lo.LiveKeySecret, lo.LiveWebhookURL, lo.LiveWebhookSecret, lo.LiveWebhooks = "", "", "", "", nil
		s.live = newMode(lo, "live")
	}
	return s
}

// newMode builds and starts the account of one mode; its random stream differs per mode so
// that test and live ids never repeat each other.
func newMode(opt Options, mode string) *Sim {
	scale := opt.TimeScale
	if scale <= 0 {
		scale = 1
	}
	seed := uint64(opt.Seed)
	if seed == 0 {
		seed = randomSeed()
	}
	stream := uint64(0x5eed)
	if mode == "live" {
		stream = 0x11fe
	}
	ctx, cancel := context.WithCancel(context.Background())
	st := &state{
		rnd:      rand.New(rand.NewPCG(seed, stream)),
		faults:   opt.Faults,
		payments: map[string]*payRec{},
		payList: newListing(func(r *payRec) (int64, int64) { return r.p.CreatedAt, r.seq },
			func(r *payRec) (int64, int64) { return r.added, r.seq }),
		orders:  map[string]*orderRec{},
		refunds: map[string]*refundRec{},
		refundList: newListing(func(r *refundRec) (int64, int64) { return r.r.CreatedAt, r.seq },
			func(r *refundRec) (int64, int64) { return r.added, r.seq }),
		paymentRefunds: map[string][]*refundRec{},
		links:          map[string]*linkRec{},
		disputes:       map[string]*disputeRec{},
		settlements:    map[string]*settleRec{},
		settleList: newListing(func(r *settleRec) (int64, int64) { return r.st.CreatedAt, r.seq },
			func(r *settleRec) (int64, int64) { return r.added, r.seq }),
	}
	if opt.AccountID == "" {
		opt.AccountID = "acc_" + st.randID()
	}
	if opt.AccountEmail == "" {
		opt.AccountEmail = "owner@" + opt.AccountID + ".example"
	}
	s := wire(opt, mode, st, &lifetime{scale: scale, ctx: ctx})
	s.cancel = cancel
	if opt.SettleEvery > 0 {
		s.life.wg.Add(1)
		go s.settlements.settleLoop(s.life.scaled(opt.SettleEvery))
	}
	return s
}

// Close stops every delivery and settlement goroutine (of both modes) and waits for them;
// in-flight webhook requests are cancelled. Entities and the delivery log stay readable
// through State. Calling Close again does nothing more.
func (s *Sim) Close() {
	if s.live != nil {
		s.live.Close()
	}
	s.st.mu.Lock() // goroutines are only started under s.mu after checking s.ctx
	s.cancel()
	s.st.mu.Unlock()
	s.life.wg.Wait()
	s.hooks.hc.CloseIdleConnections()
}

// Live returns the live-mode account (spec/razorpay.md §1.10, checklist item 15): its own
// payments, orders, refunds, links, settlements, disputes, events, webhooks and faults, visible
// only to the API with Options.LiveKeyID/LiveKeySecret. It is nil when live mode is not
// configured; on the live account itself Live returns the receiver. Its ServeHTTP serves live
// mode only; the test-mode Sim's ServeHTTP serves both, by key. Closing the test-mode Sim
// closes it too.
func (s *Sim) Live() *Sim {
	if s.mode == "live" {
		return s
	}
	return s.live
}

// Mode returns "test" or "live": which key set and data this Sim serves.
func (s *Sim) Mode() string { return s.mode }

// AccountID returns the account id put in every envelope.
func (s *Sim) AccountID() string { return s.opt.AccountID }

// SetFaults replaces the injected faults; requests and events that start afterwards see them.
// On the test-mode Sim it sets live mode's faults too; Live().SetFaults sets live mode's only.
func (s *Sim) SetFaults(f Faults) {
	if s.live != nil {
		s.live.SetFaults(f)
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	f.FailNext = slices.Clone(f.FailNext)
	s.st.faults = f
	s.st.tokensAt = time.Time{}
}

// RotateWebhookSecret is Sim.RotateWebhookSecret.
func (wh *webhooks) RotateWebhookSecret(secret string) {
	wh.st.mu.Lock()
	defer wh.st.mu.Unlock()
	ep := wh.endpoints[0]
	ep.prevSecret, ep.secret = ep.secret, secret
}

// scaled compresses a real-world duration by the time scale.
func (lt *lifetime) scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) * lt.scale)
}

// sleep waits d of real time; false when the simulator closed meanwhile.
func (lt *lifetime) sleep(d time.Duration) bool {
	return sleep.For(lt.ctx, d) == nil
}

// randomSeed is a seed for a Sim without Options.Seed, never 0.
func randomSeed() uint64 {
	var b [8]byte
	_, _ = cryptorand.Read(b[:]) // never fails on Linux, macOS or Windows (crypto/rand.Read)
	return binary.LittleEndian.Uint64(b[:]) | 1
}

const idChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// randID returns a random 14-character alphanumeric id (spec/razorpay.md §3). Ids are not
// remembered (that cost ~50 bytes per id at 100,000 payments): among 62^14 ≈ 1.2·10^25 values a
// repeat within a million ids has a chance below 10^-13, and entity ids are drawn again when
// taken (freshID). The caller holds s.mu or is New.
func (st *state) randID() string {
	var b [14]byte
	for i := range b {
		b[i] = idChars[st.rnd.IntN(len(idChars))]
	}
	return string(b[:])
}

// freshID returns prefix + a random id that taken does not report as in use; the caller holds
// s.mu.
func (st *state) freshID(prefix string, taken func(string) bool) string {
	for {
		if id := prefix + st.randID(); !taken(id) {
			return id
		}
	}
}

// nextSeq orders entities created in the same second; the caller holds s.mu.
func (st *state) nextSeq() int64 {
	st.seq++
	return st.seq
}

// Wait blocks until every recorded event is finished (delivered, lost or given up after the
// retry window or because its endpoint was disabled), in both modes, or ctx ends. It polls;
// use it in tests and the demo.
func (s *Sim) Wait(ctx context.Context) error {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		if s.hooks.idle() && (s.live == nil || s.live.hooks.idle()) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

func (wh *webhooks) idle() bool {
	wh.st.mu.Lock()
	defer wh.st.mu.Unlock()
	for _, e := range wh.events {
		if !e.finished {
			return false
		}
	}
	return true
}

// compile-time check: a Sim is an http.Handler.
var _ http.Handler = (*Sim)(nil)
