package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSplitSeriesKeepsEverySession splits random series at random weeks:
// every date before and after the split holds the same sessions (only the
// series a session is listed under and its week number change), and the
// part before the split is the old series exactly.
func TestSplitSeriesKeepsEverySession(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	splits, dates := 0, 0
	for tries := 0; splits < 300 && tries < 3000; tries++ {
		s, _, from, to := randomState(r)
		if Validate(s) != nil || len(s.Series) == 0 {
			continue
		}
		sr := s.Series[r.IntN(len(s.Series))]
		last := to
		if sr.End != 0 {
			last = min(last, sr.End)
		}
		weeks := int(last-sr.Anchor)/7 - 1
		if weeks < 1 {
			continue
		}
		at := sr.Anchor.AddDays(7 * (1 + r.IntN(weeks)))
		after := s
		after.Series, after.Entries = slices.Clone(s.Series), slices.Clone(s.Entries)
		next := int64(1 << 40)
		past, _, err := after.SplitSeries(sr.ID, at.AddDays(r.IntN(7)), func() int64 { next++; return next })
		if err != nil {
			t.Fatalf("split %s at %s: %v", sr.Name, at, err)
		}
		if err := Validate(after); err != nil {
			t.Fatalf("split %s at %s: %v", sr.Name, at, err)
		}
		splits++
		was, is := mustNew(t, s), mustNew(t, after)
		for d := min(from, sr.Anchor); d < to; d++ {
			dates++
			a, b := was.Day(d), is.Day(d)
			if got, want := describeAll(is, b), describeAll(was, a); !slices.Equal(got, want) {
				t.Fatalf("split %s at %s changes %s:\n got %q\nwant %q", sr.Name, at, d, got, want)
			}
			for _, x := range b {
				for _, sw := range x.Series {
					// A session belongs to the part its original date falls in.
					if (sw.SeriesID == past) != (x.Ref().Date < at) && (sw.SeriesID == past || sw.SeriesID == sr.ID) {
						t.Fatalf("%s: a session of %s on %s is listed under the wrong part", d, sr.Name, d)
					}
				}
			}
		}
	}
	if splits < 300 {
		t.Fatalf("only %d splits", splits)
	}
	t.Logf("%d splits, %d dates compared", splits, dates)
}

func mustNew(t *testing.T, s State) *Timetable {
	t.Helper()
	tt, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// describeAll describes a day's sessions without the series they are
// listed under.
func describeAll(tt *Timetable, day []Session) []string {
	out := make([]string, len(day))
	for i, s := range day {
		s.Series = nil
		out[i] = describeSession(tt, s)
	}
	slices.Sort(out)
	return out
}
