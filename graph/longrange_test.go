package graph_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// The requests of the long-range tests: a capacity rule and a pausing
// closure that run to the last date a timetable holds, then the things
// every client does.
const (
	weeklyRingRule = `mutation($room: ID!) { createCapacityRule(input: {roomId: $room,
		weekdays: [SUNDAY, MONDAY, TUESDAY, WEDNESDAY, THURSDAY, FRIDAY, SATURDAY], start: "00:00", end: "24:00", units: 1}) { revision } }`
	longRingRule = `mutation($room: ID!, $to: Date!) { createCapacityRule(input: {roomId: $room,
		from: "2031-01-01", to: $to, start: "00:00", end: "24:00", units: 1}) { revision clashes { message } } }`
	longClosure = `mutation($to: Date!) { createClosure(input: {from: "2032-06-01", to: $to, reason: "Closed for good",
		pausesRotation: true}) { revision } }`
	renameRoom   = `mutation($room: ID!, $name: String!) { updateRoom(id: $room, input: {name: $name}) { revision } }`
	farWeek      = `{ days(from: "2031-03-02", to: "2031-03-09") { date sessions { id start room { name } cancelled } } }`
	lastWeek     = `{ days(from: "2199-12-24", to: "2199-12-31") { date sessions { id cancelled } } }`
	exportQuery  = `{ calendarExport }`
	availability = `query($room: ID!) { availability(roomId: $room, from: "2031-03-02T00:00:00Z", to: "2031-03-09T00:00:00Z",
		units: 1, minutes: 60) { start end latestStart } }`
	clashQuery = `{ clashes { clashes { message } provenUntil } }`
)

// ringID returns the id of the gym demo's Ring.
func (a *api) ringID(tok string) string {
	a.t.Helper()
	for _, r := range a.ok(tok, `{ rooms { id name } }`, nil)["rooms"].([]any) {
		if r := r.(map[string]any); r["name"] == "Ring" {
			return r["id"].(string)
		}
	}
	a.t.Fatal("the gym demo has no Ring")
	return ""
}

// TestLongRangesStayFast is the far-future attack on the default settings:
// a capacity override and a pausing closure to the end of the window on
// the gym demo. Both are accepted at once, and afterwards a write, a week
// (in the override, and the last of the window), the iCalendar export,
// availability and the clash report each answer in well under a second.
// Dates outside the window are refused with BAD_USER_INPUT and write
// nothing.
func TestLongRangesStayFast(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("gym", engine.Gym)
		ring := a.ringID(tok)
		before := a.dump(tok)
		for _, to := range []string{"9999-12-31", "2200-01-01"} {
			e := a.fails(tok, "BAD_USER_INPUT", longRingRule, map[string]any{"room": ring, "to": to})
			if want := `"` + to + `" is outside the dates a timetable holds (1900-01-01 to 2199-12-31)`; !strings.Contains(e.Message, want) {
				t.Errorf("%s: got %q, want it to say %q", to, e.Message, want)
			}
			a.fails(tok, "BAD_USER_INPUT", longClosure, map[string]any{"to": to})
		}
		if after := a.dump(tok); after != before {
			t.Fatalf("a refused date changed the business")
		}

		timed := func(name, query string, vars map[string]any) map[string]any {
			t.Helper()
			start := time.Now()
			data := a.ok(tok, query, vars)
			took := time.Since(start)
			t.Logf("%-28s %8.1f ms", name, float64(took.Microseconds())/1000)
			if took > 2*time.Second {
				t.Errorf("%s took %v", name, took)
			}
			return data
		}
		max := engine.MaxDate.String()
		timed("weekly capacity rule", weeklyRingRule, map[string]any{"room": ring})
		if c := path(timed("override to "+max, longRingRule, map[string]any{"room": ring, "to": max}), "createCapacityRule", "clashes"); len(c.([]any)) != 0 {
			t.Fatalf("the override clashes: %v", c)
		}
		timed("closure to "+max, longClosure, map[string]any{"to": max})
		timed("write (rename a room)", renameRoom, map[string]any{"room": ring, "name": "Ring 2"})
		timed("write (rename it back)", renameRoom, map[string]any{"room": ring, "name": "Ring"})
		week := timed("week in the override", farWeek, nil)
		if n := len(path(week, "days").([]any)); n != 7 {
			t.Errorf("%d days", n)
		}
		last := timed("last week of the window", lastWeek, nil)
		for _, d := range path(last, "days").([]any) {
			for _, s := range path(d, "sessions").([]any) {
				if path(s, "cancelled") != true {
					t.Errorf("a session after the closure is not cancelled: %v", s)
				}
			}
		}
		ics := timed("calendarExport", exportQuery, nil)["calendarExport"].(string)
		t.Logf("export: %d bytes, %d events, %d EXDATEs", len(ics), strings.Count(ics, "BEGIN:VEVENT"), strings.Count(ics, "EXDATE"))
		if len(ics) > 2<<20 {
			t.Errorf("the export is %d bytes", len(ics))
		}
		if w := path(timed("availability (a week)", availability, map[string]any{"room": ring}), "availability"); len(w.([]any)) == 0 {
			t.Error("no availability in the Ring for a week")
		}
		if c := path(timed("clashes", clashQuery, nil), "clashes", "clashes"); len(c.([]any)) != 0 {
			t.Errorf("clashes: %v", c)
		}
	})
}

// longGymAPI is the gym demo on d after the long-range writes of
// TestLongRangesStayFast, with an owner token and the Ring's id.
func longGymAPI(b *testing.B, d modelstest.Database) (http.Handler, string, string) {
	h, tok, _, _ := gymAPI(b, d, models.Owner)
	post := func(query string, vars map[string]any) map[string]any {
		body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
		req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var out struct {
			Data   map[string]any
			Errors []any
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || len(out.Errors) > 0 {
			b.Fatalf("%s: %v %v", firstLine(query), err, out.Errors)
		}
		return out.Data
	}
	var ring string
	for _, r := range post(`{ rooms { id name } }`, nil)["rooms"].([]any) {
		if r := r.(map[string]any); r["name"] == "Ring" {
			ring = r["id"].(string)
		}
	}
	max := engine.MaxDate.String()
	post(weeklyRingRule, map[string]any{"room": ring})
	post(longRingRule, map[string]any{"room": ring, "to": max})
	post(longClosure, map[string]any{"to": max})
	b.ResetTimer()
	return h, tok, ring
}

func benchPost(b *testing.B, h http.Handler, tok, query string, vars map[string]any) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || bytes.Contains(rec.Body.Bytes(), []byte(`"errors"`)) {
		b.Fatalf("%s: %d %s", firstLine(query), rec.Code, rec.Body.String()[:min(300, rec.Body.Len())])
	}
}

// BenchmarkLongRangeWrite renames a room of the gym demo holding a
// capacity override and a pausing closure to the end of the window: a full
// guarded write with its two clash proofs.
func BenchmarkLongRangeWrite(b *testing.B) {
	eachBenchDatabase(b, func(b *testing.B, d modelstest.Database) {
		h, tok, ring := longGymAPI(b, d)
		names := []string{"Ring 2", "Ring"}
		i := 0
		for b.Loop() {
			benchPost(b, h, tok, renameRoom, map[string]any{"room": ring, "name": names[i%2]})
			i++
		}
	})
}

// BenchmarkLongRangeExport exports that business as an iCalendar file.
func BenchmarkLongRangeExport(b *testing.B) {
	eachBenchDatabase(b, func(b *testing.B, d modelstest.Database) {
		h, tok, _ := longGymAPI(b, d)
		for b.Loop() {
			benchPost(b, h, tok, exportQuery, nil)
		}
	})
}

// eachBenchDatabase runs a benchmark on a fresh SQLite database and, when
// configured, a fresh PostgreSQL schema, made inside each run of it.
func eachBenchDatabase(b *testing.B, bench func(b *testing.B, d modelstest.Database)) {
	b.Run("sqlite", func(b *testing.B) { bench(b, modelstest.SQLite(b)) })
	b.Run("postgres", func(b *testing.B) {
		d, ok := modelstest.Postgres(b)
		if !ok {
			b.Skip("no PostgreSQL")
		}
		bench(b, d)
	})
}
