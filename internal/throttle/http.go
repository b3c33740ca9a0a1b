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

// ParseRetryAfter reads a Retry-After header value, delay seconds or an HTTP date (RFC 9110
// §10.2.3), as a duration from now. It returns 0 when the value is empty, negative, a date not
// after now, or unreadable.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int64(365*24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
