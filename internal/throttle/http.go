package throttle

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Asks reports whether an HTTP answer asks the client for a slower pace: 429 Too Many Requests,
// or 503 Service Unavailable carrying a Retry-After (RFC 9110 §15.6.4, §10.2.3). retryAfter is
// the parsed header (ParseRetryAfter).
func Asks(status int, retryAfter time.Duration) bool {
	return status == http.StatusTooManyRequests || (status == http.StatusServiceUnavailable && retryAfter > 0)
}

// maxRetryAfter bounds what ParseRetryAfter reports (a year), whichever form the header has;
// the Gate then honours at most its own cap (DefaultMaxPause unless SetMaxPause says otherwise).
const maxRetryAfter = 365 * 24 * time.Hour

// ParseRetryAfter reads a Retry-After header value, delay seconds or an HTTP date (RFC 9110
// §10.2.3), as a duration from now, at most a year. It returns 0 when the value is empty,
// negative, a date not after now, or unreadable.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int64(maxRetryAfter/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxRetryAfter)
	}
	return 0
}
