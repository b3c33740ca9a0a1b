package config

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
)

// validate returns the problems of the reconcile section, each prefixed with its key path.
func (r Reconcile) validate() []string {
	var p []string
	if r.Schedule != "" {
		if _, err := cron.ParseStandard(r.Schedule); err != nil {
			p = append(p, fmt.Sprintf("reconcile.schedule: %q is not a cron schedule (five fields, e.g. \"*/10 * * * *\", or empty to run only by hand): %v", r.Schedule, err))
		}
	}
	if r.Window <= 0 {
		p = append(p, "reconcile.window: must be positive (e.g. 48h)")
	}
	if r.Lookback < 0 || r.AuthorizedAge < 0 || r.DrainTimeout < 0 {
		p = append(p, "reconcile.lookback, reconcile.authorized_age, reconcile.drain_timeout: must not be negative")
	}
	return p
}

// SinceIn returns the start of the go-live day reconcile.since in loc; zero when unset.
func (r Reconcile) SinceIn(loc *time.Location) time.Time {
	if r.Since == "" {
		return time.Time{}
	}
	t, err := time.ParseInLocation("2006-01-02", r.Since, loc)
	if err != nil {
		return time.Time{}
	}
	return t
}
