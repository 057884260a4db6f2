package icalendar

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
)

// withLongClosures adds to a random state closures that run for years: one
// to the last date a timetable holds, one of some years inside the window,
// with and without pauses, for all rooms or one.
func withLongClosures(r *rand.Rand, st engine.State, from, to engine.Date) engine.State {
	st.Closures = append([]engine.Closure(nil), st.Closures...)
	mid := from + engine.Date(r.IntN(int(to-from)))
	c := engine.Closure{ID: 601, From: mid, To: engine.MaxDate, Reason: "closed for good", Pause: r.IntN(2) == 0}
	if r.IntN(2) == 0 {
		c.RoomIDs = []int64{st.Rooms[r.IntN(len(st.Rooms))].ID}
	}
	st.Closures = append(st.Closures, c)
	if r.IntN(2) == 0 {
		early := from + engine.Date(r.IntN(int(mid-from)+1)) - 100
		st.Closures = append(st.Closures, engine.Closure{ID: 602, From: early, To: early + engine.Date(200+r.IntN(400)),
			Reason: "works", Pause: r.IntN(2) == 0, RoomIDs: []int64{st.Rooms[r.IntN(len(st.Rooms))].ID}})
	}
	return st
}

// TestExportLongClosures exports random businesses with closures of years
// and to the end of the window: the file stays the size of the rules (no
// event lists more than maxListed dates of one closure), and an independent
// reader expands it to exactly the sessions the engine resolves date by
// date over the test's window, the brute force.
func TestExportLongClosures(t *testing.T) {
	zones := []*time.Location{time.UTC, mustZone(t, "Europe/Berlin")}
	r := rand.New(rand.NewPCG(12, 2))
	const want = 25
	valid := 0
	for valid < want {
		st, from, to := randomState(r, zones)
		st = withLongClosures(r, st, from, to)
		if engine.Validate(st) != nil {
			continue
		}
		valid++
		start := time.Now()
		data, err := Export(st, ExportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("state %d: export took %v", valid, took)
		}
		// The same state without any closure: the long ones may add no
		// more than maxListed lines per event and closure.
		bare := st
		bare.Closures = nil
		plain, err := Export(bare, ExportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		events := bytes.Count(plain, []byte("BEGIN:VEVENT"))
		if limit := len(plain) + 2*events*len(st.Closures)*(maxListed+2)*200; len(data) > limit {
			t.Errorf("state %d: %d bytes with the closures, %d without (%d events)", valid, len(data), len(plain), events)
		}
		file := filepath.Join(t.TempDir(), fmt.Sprintf("long-%d.ics", valid))
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tt := timetable(t, st)
		wantOccs := engineOccurrences(tt, from, to)
		got := pythonOccurrences(t, file, from, to, st.Business.Location)
		if diff := diffOccurrences(got, wantOccs); diff != "" {
			dump(t, data)
			t.Fatalf("state %d (%s) %s..%s: the file does not give the engine's sessions:\n%s", valid, st.Business.Location, from, to, diff)
		}
	}
}

// TestExportStops checks that an export whose caller's deadline has passed
// gives up with engine.ErrStopped, and that one whose stop never fires
// writes what an export without one writes.
func TestExportStops(t *testing.T) {
	st, _, _ := randomState(rand.New(rand.NewPCG(9, 9)), []*time.Location{time.UTC})
	if _, err := Export(st, ExportOptions{Stop: func() bool { return true }}); err != engine.ErrStopped {
		t.Fatalf("got %v, want engine.ErrStopped", err)
	}
	a, err := Export(st, ExportOptions{Stop: func() bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Export(st, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("a stop that never fires changed the file")
	}
}
