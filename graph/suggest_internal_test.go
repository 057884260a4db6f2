package graph

import (
	"testing"

	"github.com/koredyne/schedule/engine"
)

// TestSuggestionTrialsAreBounded holds pick to its bounds: however many
// candidates there are and whatever they answer, a refusal tries at most
// maxTrials and keeps at most maxSuggestions; one kind that always
// succeeds leaves room for the others.
func TestSuggestionTrialsAreBounded(t *testing.T) {
	many := func(kind suggestionKind, n int) []candidate {
		out := make([]candidate, n)
		for i := range out {
			out[i] = candidate{suggestion: suggestion{kind: kind, start: engine.LocalTime(i)}}
		}
		return out
	}
	kinds := func() [][]candidate {
		return [][]candidate{many(sameRoomOtherTime, 64), many(otherRoom, 400), many(otherWeek, 51), many(otherStaff, 1000)}
	}
	cases := []struct {
		name         string
		kinds        [][]candidate
		yes          func(*candidate) bool
		trials, kept int
	}{
		{"nothing succeeds", kinds(), func(*candidate) bool { return false }, maxTrials, 0},
		{"everything succeeds", kinds(), func(*candidate) bool { return true }, maxSuggestions, maxSuggestions},
		{"few candidates", [][]candidate{many(otherRoom, 2), nil, many(otherWeek, 1)}, func(*candidate) bool { return false }, 3, 0},
		{"no candidates", nil, func(*candidate) bool { return true }, 0, 0},
		{"only the last candidate of a kind", kinds(), func(c *candidate) bool { return c.kind == otherWeek && c.start == 50 }, maxTrials, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			got, trials := pick(func(c *candidate) bool { n++; return tc.yes(c) }, tc.kinds)
			if trials != tc.trials || n != tc.trials || len(got) != tc.kept {
				t.Errorf("got %d trials (%d counted), %d kept; want %d, %d", trials, n, len(got), tc.trials, tc.kept)
			}
		})
	}

	// The kind that always succeeds leaves turns to the others, which
	// find theirs.
	got, _ := pick(func(c *candidate) bool { return c.kind == otherStaff || c.kind == sameRoomOtherTime && c.start == 5 }, kinds())
	var staff, times int
	for _, s := range got {
		switch s.kind {
		case otherStaff:
			staff++
		case sameRoomOtherTime:
			times++
		}
	}
	if times != 1 || staff < 2 {
		t.Errorf("kept %d other times and %d other staff, want 1 and at least 2", times, staff)
	}
}

// TestOtherTimesNearestFirst: other times alternate later and earlier,
// keep the length, and stay within the day's hours.
func TestOtherTimesNearestFirst(t *testing.T) {
	got := otherTimes(span{1, engine.MustTime("06:30"), engine.MustTime("07:30")})
	want := []string{"06:45", "06:15", "07:00", "06:00", "07:15", "07:30"}
	for i, w := range want {
		if got[i].start.String() != w || got[i].end-got[i].start != 60 {
			t.Fatalf("other time %d: got %s–%s, want %s for an hour", i, got[i].start, got[i].end, w)
		}
	}
	last := got[len(got)-1]
	if last.end != dayCloses || last.start != dayCloses-60 {
		t.Errorf("last other time %s–%s, want the hour before %s", last.start, last.end, dayCloses)
	}
	if n := len(got); n != (21-6)*4 { // every quarter hour from 06:00 to 21:00 but 06:30
		t.Errorf("%d other times, want %d", n, (21-6)*4)
	}
}
