package reference_test

// Benchmarks on the reference system's own gym demo (its export in
// testdata/reference, made with its clock at Sunday 2026-12-06), imported:
// the same business, rows and dates the reference resolves, so that the
// figures compare with the reference's own code timed on the same data (the
// docs/performance.md, "Against the Node reference"). TestReferenceGymBenchWork pins what
// each benchmark computes, so a change that did less would show.

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/reference"
)

// refGymFrom is the Sunday the reference exported its gym demo on.
var refGymFrom = engine.MustDate(2026, 12, 6)

func referenceGym(tb testing.TB) *engine.Timetable {
	tb.Helper()
	b, err := os.ReadFile("testdata/reference/export-gym.json")
	if err != nil {
		tb.Fatal(err)
	}
	imp, err := reference.Read(bytes.NewReader(b), reference.Options{Location: time.UTC, WeekStart: time.Sunday})
	if err != nil {
		tb.Fatal(err)
	}
	tt, err := engine.New(imp.State)
	if err != nil {
		tb.Fatal(err)
	}
	return tt
}

// The reference's resolution of the same dates, counted the way its rows group
// into real sessions: 110 in the week from 2026-12-06 (the private lesson
// included), 5,688 in the year, no clash.
func TestReferenceGymBenchWork(t *testing.T) {
	tt := referenceGym(t)
	week := 0
	for d := refGymFrom; d < refGymFrom+7; d++ {
		week += len(tt.Day(d))
	}
	var into []engine.Session
	for d := refGymFrom; d < refGymFrom+7; d++ {
		into = tt.AppendDay(into, d)
	}
	if len(into) != week {
		t.Errorf("the week appended into one buffer holds %d sessions, resolved a day at a time %d", len(into), week)
	}
	year := 0
	for _, day := range tt.Days(refGymFrom, refGymFrom+365) {
		year += len(day.Sessions)
	}
	if week != 110 || year != 5688 {
		t.Errorf("week %d sessions, year %d; the reference has 110 and 5,688", week, year)
	}
	if r := tt.Clashes(refGymFrom); len(r.Clashes) != 0 {
		t.Errorf("clash: %s", r.Clashes[0].Message)
	}
}

// BenchmarkReferenceGymWeek resolves the 7 dates of the week the reference's
// gym demo was exported in.
func BenchmarkReferenceGymWeek(b *testing.B) {
	tt := referenceGym(b)
	n := 0
	for b.Loop() {
		for d := refGymFrom; d < refGymFrom+7; d++ {
			n += len(tt.Day(d))
		}
	}
	if n == 0 {
		b.Fatal("no sessions")
	}
}

// BenchmarkReferenceGymWeekInto resolves the same week into one buffer
// kept from week to week (Timetable.AppendDay), as the CalDAV listing walks
// its window: the engine's work without a fresh allocation of the week's
// sessions for each (what a GraphQL request needs, and the benchmarks
// above pay).
func BenchmarkReferenceGymWeekInto(b *testing.B) {
	tt := referenceGym(b)
	var buf []engine.Session
	n := 0
	for b.Loop() {
		buf = buf[:0]
		for d := refGymFrom; d < refGymFrom+7; d++ {
			buf = tt.AppendDay(buf, d)
		}
		n += len(buf)
	}
	if n == 0 {
		b.Fatal("no sessions")
	}
}

// BenchmarkReferenceGymWeekDays resolves the same week in one call to Days,
// as the GraphQL days query does.
func BenchmarkReferenceGymWeekDays(b *testing.B) {
	tt := referenceGym(b)
	n := 0
	for b.Loop() {
		for _, d := range tt.Days(refGymFrom, refGymFrom+7) {
			n += len(d.Sessions)
		}
	}
	if n == 0 {
		b.Fatal("no sessions")
	}
}

// BenchmarkReferenceGymYear resolves 365 dates of the reference's gym demo.
func BenchmarkReferenceGymYear(b *testing.B) {
	tt := referenceGym(b)
	for b.Loop() {
		if days := tt.Days(refGymFrom, refGymFrom+365); len(days) != 365 {
			b.Fatal(len(days))
		}
	}
}

// BenchmarkReferenceGymClashProof proves the reference's gym demo free of
// clashes for every date from 2026-12-06 on; the reference's own check scans
// the 3 weeks its horizon gives this demo.
func BenchmarkReferenceGymClashProof(b *testing.B) {
	tt := referenceGym(b)
	for b.Loop() {
		if r := tt.Clashes(refGymFrom); len(r.Clashes) != 0 {
			b.Fatal(r.Clashes[0].Message)
		}
	}
}
