package console

import (
	"net/http"
	"time"
)

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

func (c *Console) today(w http.ResponseWriter, r *http.Request, s session) {
	t, err := c.o.Backend.Today(r.Context())
	if err != nil {
		c.backendError(w, s, "read today's figures", err)
		return
	}
	c.render(w, http.StatusOK, "today", s, c.todayView(t))
}

func (c *Console) todayView(t Today) todayView {
	v := todayView{Today: t, Silence: c.o.WebhookSilence}
	now := c.o.Now()
	v.WebhookWarning = t.LastWebhook.IsZero() || now.Sub(t.LastWebhook) > c.o.WebhookSilence
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
		v.Charts = append(v.Charts, moneyChart(s, c.o.Location))
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
		ch := settlementChart(*t.Settlements, c.o.Location)
		v.SettleChart = &ch
	}
	return v
}
