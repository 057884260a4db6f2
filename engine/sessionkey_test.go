package engine_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/koredyne/schedule/engine"
)

// TestParseSessionKeyRoundTrip: every key Session.Key writes, for series
// sessions across the whole date window and ids up to the largest int64, and
// for one-offs, reads back as the session it came from.
func TestParseSessionKeyRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 5))
	id := func() int64 {
		switch rng.IntN(4) {
		case 0:
			return 1 + rng.Int64N(9)
		case 1:
			return 1<<63 - 1 - rng.Int64N(3)
		}
		return 1 + rng.Int64N(1<<40)
	}
	for range 5000 {
		var s engine.Session
		if rng.IntN(3) == 0 {
			s.OneOffID = id()
		} else {
			s.Date, s.ClassTimeID, s.ClassID = engine.MinDate+engine.Date(rng.IntN(int(engine.MaxDate-engine.MinDate)+1)), id(), id()
		}
		ref, oneOff, err := engine.ParseSessionKey(s.Key())
		if err != nil {
			t.Fatalf("ParseSessionKey(%q): %v", s.Key(), err)
		}
		if ref != s.Ref() || oneOff != s.OneOffID {
			t.Fatalf("ParseSessionKey(%q) = %+v, %d; want %+v, %d", s.Key(), ref, oneOff, s.Ref(), s.OneOffID)
		}
	}
}

// TestParseSessionKeyHostile: near misses and junk are refused with an
// Invalid error on sessionId that quotes what was given.
func TestParseSessionKeyHostile(t *testing.T) {
	for _, key := range []string{
		"", "s", "o", "s/", "o/", "x/1", "S/2026-12-05/1/2", "O/1", "o/0", "o/-1", "o/+1", "o/01", "o/1.0", "o/1e3",
		"o/9223372036854775808", "o/1/2", "o/ 1", "o/1 ", "s/2026-12-05/1", "s/2026-12-05/1/2/3", "s/2026-12-05//2",
		"s/2026-12-05/1/", "s/2026-12-05/0/2", "s/2026-12-05/1/-2", "s/2026-12-5/1/2", "s/2026-02-30/1/2",
		"s/1899-12-31/1/2", "s/2200-01-01/1/2", "s/2026-12-05T00:00/1/2", "s/2026-12-05/１/2", "s/2026-12-05/1/2\x00",
		"/s/2026-12-05/1/2", "s//2026-12-05/1/2", "s/2026-12-05/99999999999999999999/2", "103", "s\\2026-12-05\\1\\2",
	} {
		ref, oneOff, err := engine.ParseSessionKey(key)
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.Invalid || e.Field != "sessionId" {
			t.Errorf("ParseSessionKey(%q) = %+v, %d, %v; want an Invalid error on sessionId", key, ref, oneOff, err)
			continue
		}
		if ref != (engine.SessionRef{}) || oneOff != 0 {
			t.Errorf("ParseSessionKey(%q) returned %+v, %d with its error", key, ref, oneOff)
		}
	}
}
