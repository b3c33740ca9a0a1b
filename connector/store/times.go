package store

import (
	"fmt"
	"time"
)

// utc returns t in UTC truncated to microseconds (the precision of DATETIME(6)); it also drops
// any monotonic clock reading.
func utc(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// utcPtr is utc for an optional time.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := utc(*t)
	return &u
}

// arg returns t as a query argument for the store's driver.
func (d *DB) arg(t time.Time) any { return d.dl.timeArg(utc(t)) }

// argPtr returns an optional time as a query argument (NULL when nil).
func (d *DB) argPtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return d.arg(*t)
}

// dbTime scans a NOT NULL time column from either driver: a time.Time from go-sql-driver with
// parseTime, text from SQLite.
type dbTime struct{ time.Time }

// Scan implements sql.Scanner.
func (t *dbTime) Scan(src any) error {
	v, ok, err := scanTime(src)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("store: NULL in a NOT NULL time column")
	}
	t.Time = v
	return nil
}

// nullTime scans a nullable time column.
type nullTime struct{ Time *time.Time }

// Scan implements sql.Scanner.
func (t *nullTime) Scan(src any) error {
	v, ok, err := scanTime(src)
	if err != nil {
		return err
	}
	t.Time = nil
	if ok {
		t.Time = &v
	}
	return nil
}

// scanTime converts a driver value into a UTC time; ok is false for NULL.
func scanTime(src any) (t time.Time, ok bool, err error) {
	switch v := src.(type) {
	case nil:
		return time.Time{}, false, nil
	case time.Time:
		return utc(v), true, nil
	case string:
		t, err = parseTime(v)
	case []byte:
		t, err = parseTime(string(v))
	default:
		return time.Time{}, false, fmt.Errorf("store: cannot scan %T into a time", src)
	}
	return t, err == nil, err
}

// parseTime reads the text forms a time column can hold: the store's own layout and, for rows
// written by hand, RFC 3339 and SQLite's datetime() output.
func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{
		"2006-01-02 15:04:05.999999999",
		time.RFC3339Nano,
		"2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02T15:04:05.999999999",
	} {
		if t, err := time.Parse(layout, s); err == nil {
			return utc(t), nil
		}
	}
	return time.Time{}, fmt.Errorf("store: unreadable time %q", s)
}
