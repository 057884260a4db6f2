package engine_test

import (
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
)

// TestParseSessionKeyRoundTrip: the key of every session of a demo's weeks
// (series sessions and one-offs) reads back as the session's ref or one-off.
func TestParseSessionKeyRoundTrip(t *testing.T) {
	week, _ := engine.ParseDate("2026-11-30")
	st, _ := demo.ByKind(engine.Gym, week)
	st.OneOffs = append(st.OneOffs, engine.OneOff{ID: 9001, ClassID: st.Classes[0].ID, RoomID: st.Rooms[0].ID,
		Date: week.AddDays(2), Start: engine.LocalTime(6 * 60), End: engine.LocalTime(7 * 60)})
	tt, err := engine.New(st)
	if err != nil {
		t.Fatal(err)
	}
	n, oneOffs := 0, 0
	for d := week; d < week.AddDays(14); d = d.AddDays(1) {
		for _, s := range tt.Day(d) {
			ref, oneOff, err := engine.ParseSessionKey(s.Key())
			switch {
			case err != nil:
				t.Fatalf("%s: %v", s.Key(), err)
			case s.OneOffID != 0 && (oneOff != s.OneOffID || ref != engine.SessionRef{}):
				t.Errorf("%s read as %v, %d", s.Key(), ref, oneOff)
			case s.OneOffID == 0 && (ref != s.Ref || oneOff != 0):
				t.Errorf("%s read as %v, %d; want %v", s.Key(), ref, oneOff, s.Ref)
			}
			n++
			if s.OneOffID != 0 {
				oneOffs++
			}
		}
	}
	if n < 50 || oneOffs == 0 {
		t.Errorf("only %d sessions, %d one-offs", n, oneOffs)
	}
}

// FuzzParseSessionKey: a session id is read only in the one form Key
// writes, so whatever ParseSessionKey accepts prints back exactly as given;
// anything else is an Invalid error on sessionId, never a panic.
func FuzzParseSessionKey(f *testing.F) {
	for _, s := range []string{"s/2026-12-05/103/19", "o/5", "o/0", "o/-5", "o/05", "o/5/", "s/2026-12-05/103", "s/2026-12-5/1/2",
		"s/2026-12-05/1/2/3", "x/1", "", "o/", "s///", "s/2026-12-05/+1/2", "o/99999999999999999999", "12"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		ref, oneOff, err := engine.ParseSessionKey(key)
		if err != nil {
			if e, ok := err.(*engine.Error); !ok || e.Code != engine.Invalid || e.Field != "sessionId" {
				t.Errorf("ParseSessionKey(%q): %#v", key, err)
			}
			return
		}
		s := engine.Session{Ref: ref, OneOffID: oneOff}
		if (oneOff == 0) == (ref == engine.SessionRef{}) || s.Key() != key {
			t.Errorf("ParseSessionKey(%q) = %v, %d, which prints as %q", key, ref, oneOff, s.Key())
		}
	})
}
