package console

import (
	"net/http"
	"time"
)

// todayPage is the Today page: the backend's figures, the charts in the console's location
// (loc), and a warning when the last webhook is older than silence (Options.WebhookSilence).
type todayPage struct {
	v       *view
	backend Backend
	now     func() time.Time
	loc     *time.Location
	silence time.Duration
}

// todayView is the Today page: the backend's figures and what the console concludes.
type todayView struct {
	Today
	// WebhookWarning is set when the last webhook is older than Options.WebhookSilence.
	WebhookWarning bool
	Silence        time.Duration
	NeedPerson     int // parked + dead
	Busy           int // pending + processing
	StatusList     []statusCount
	Charts         []chartView
	SettleChart    *chartView
	// CapturedNote is Today.SeriesNote said once under every chart: "Captured amounts are not
	// shown: …" when a chart lacks them (or there is none and Razorpay was not read), else the
	// note as is ("" for none).
	CapturedNote    string
	CapturedUnknown bool // no chart shows captured amounts: Razorpay was not read
}

type statusCount struct {
	Status string
	N      int
}

func (p *todayPage) show(w http.ResponseWriter, r *http.Request, s session) {
	t, err := p.backend.Today(r.Context())
	if err != nil {
		p.v.backendError(w, s, "read today's figures", err)
		return
	}
	p.v.render(w, http.StatusOK, "today", s, p.view(t))
}

func (p *todayPage) view(t Today) todayView {
	v := todayView{Today: t, Silence: p.silence}
	now := p.now()
	v.WebhookWarning = t.LastWebhook.IsZero() || now.Sub(t.LastWebhook) > p.silence
	for _, st := range Statuses {
		n := t.Statuses[st]
		v.StatusList = append(v.StatusList, statusCount{st, n})
		switch st {
		case "parked", "dead":
			v.NeedPerson += n
		case "pending", "processing":
			v.Busy += n
		}
	}
	for _, s := range t.Series {
		v.Charts = append(v.Charts, moneyChart(s, p.loc))
	}
	v.CapturedUnknown = len(v.Charts) == 0 && t.SeriesNote != ""
	for _, ch := range v.Charts {
		if !ch.SecondKnown {
			v.CapturedUnknown = true
		}
	}
	v.CapturedNote = t.SeriesNote
	if v.CapturedUnknown && t.SeriesNote != "" {
		v.CapturedNote = "Captured amounts are not shown: " + t.SeriesNote
	}
	if t.Settlements != nil {
		ch := settlementChart(*t.Settlements, p.loc)
		v.SettleChart = &ch
	}
	return v
}
