package engine_test

import (
	"testing"

	"github.com/koredyne/schedule/engine"
)

// FuzzParseDate: a date is read only in its one written form, so whatever
// ParseDate accepts is a valid date that prints back exactly as it was
// given; anything else is an error, never a panic.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2026-12-06", "2024-02-29", "2025-02-29", "1900-01-01", "2199-12-31", "0001-01-01",
		"9999-12-31", "2026-1-6", "2026-12-06T00:00", " 2026-12-06", "２０２６-12-06", "2026-12-06\x00", "", "-001-01-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := engine.ParseDate(s)
		if err != nil {
			return
		}
		if !d.Valid() || d.String() != s {
			t.Errorf("ParseDate(%q) = %v (valid %v), which prints as %q", s, int(d), d.Valid(), d.String())
		}
	})
}

// FuzzParseSessionKey: a session id is read only in the form Session.Key
// writes, so whatever ParseSessionKey accepts names one session (a series
// ref or a one-off, never both) whose key is exactly the text given.
func FuzzParseSessionKey(f *testing.F) {
	for _, s := range []string{"s/2026-12-05/103/19", "o/42", "o/0", "o/042", "o/+4", "s/2026-12-05/1", "s/2026-12-05/1/2/3",
		"s/2026-02-30/1/2", "s/2026-12-05/9223372036854775807/1", "o/9223372036854775808", "x/1", "", "s//1/2", "s/2026-12-05/1/2\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ref, oneOff, err := engine.ParseSessionKey(s)
		if err != nil {
			return
		}
		if (oneOff != 0) == (ref != engine.SessionRef{}) {
			t.Fatalf("ParseSessionKey(%q) = %+v, %d: not exactly one of a ref and a one-off", s, ref, oneOff)
		}
		if oneOff < 0 || ref.ClassTimeID < 0 || ref.ClassID < 0 || (oneOff == 0 && !ref.Date.Valid()) {
			t.Fatalf("ParseSessionKey(%q) = %+v, %d: an impossible session", s, ref, oneOff)
		}
		if key := engine.SessionKey(ref, oneOff); key != s {
			t.Errorf("ParseSessionKey(%q) = %+v, %d, whose key is %q", s, ref, oneOff, key)
		}
	})
}

// FuzzParseLocalTime: the same for wall-clock times, "00:00" to "24:00".
func FuzzParseLocalTime(f *testing.F) {
	for _, s := range []string{"00:00", "09:05", "23:59", "24:00", "24:01", "9:05", "09:5", "25:00", "12:60", "-1:00", "09:05:00", "٠٩:٠٥", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := engine.ParseLocalTime(s)
		if err != nil {
			return
		}
		if !v.Valid() || v.String() != s {
			t.Errorf("ParseLocalTime(%q) = %d (valid %v), which prints as %q", s, int(v), v.Valid(), v.String())
		}
	})
}
