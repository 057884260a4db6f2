package engine

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func mins(hhmm string) int64 { return int64(MustTime(hhmm)) }

// TestAvailabilityExample is the example of the design: capacity 3 with
// three one-unit bookings leaves room for 2 units × 90 minutes from 09:00;
// 2 more units 09:45–10:15 break that for part of the window.
func TestAvailabilityExample(t *testing.T) {
	levels := []Level{{From: mins("06:00"), To: mins("22:00"), Units: 3}}
	uses := []Use{
		{From: mins("08:30"), To: mins("09:15"), Units: 1},
		{From: mins("09:20"), To: mins("09:40"), Units: 1},
		{From: mins("10:05"), To: mins("10:40"), Units: 1},
	}
	from, to := mins("09:00"), mins("12:00")
	got := Availability(levels, uses, from, to, 2, 90)
	if len(got) != 1 || got[0] != (Window{From: from, To: to, LatestStart: mins("10:30")}) {
		t.Fatalf("got %+v, want the whole window with latest start 10:30", got)
	}
	if !CanBook(levels, uses, from, from+90, 2) {
		t.Error("CanBook 09:00–10:30 for 2 units: got false")
	}
	uses = append(uses, Use{From: mins("09:45"), To: mins("10:15"), Units: 2})
	got = Availability(levels, uses, from, to, 2, 90)
	// 09:45–10:15 leaves 1 unit or none; from 10:15 two are free again.
	want := []Window{{From: mins("10:15"), To: to, LatestStart: mins("10:30")}}
	if len(got) != 1 || got[0] != want[0] {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if CanBook(levels, uses, from, from+90, 2) {
		t.Error("CanBook 09:00–10:30 for 2 units after the 09:45 booking: got true")
	}
	// The timeline names each stretch.
	tl := Timeline(levels, uses, mins("09:40"), mins("10:20"))
	wantTL := []Stretch{
		{From: mins("09:40"), To: mins("09:45"), Capacity: 3, Used: 0, Free: 3},
		{From: mins("09:45"), To: mins("10:05"), Capacity: 3, Used: 2, Free: 1},
		{From: mins("10:05"), To: mins("10:15"), Capacity: 3, Used: 3, Free: 0},
		{From: mins("10:15"), To: mins("10:20"), Capacity: 3, Used: 1, Free: 2},
	}
	if len(tl) != len(wantTL) {
		t.Fatalf("timeline %+v", tl)
	}
	for i := range tl {
		if tl[i] != wantTL[i] {
			t.Errorf("stretch %d: got %+v, want %+v", i, tl[i], wantTL[i])
		}
	}
}

func TestAvailabilityRules(t *testing.T) {
	tests := []struct {
		name     string
		levels   []Level
		uses     []Use
		units    int
		duration int64
		from, to int64
		want     []Window
	}{
		{"no level is no capacity", nil, nil, 1, 10, 0, 100, nil},
		{"levels are absolute, not added", []Level{{0, 50, 6}, {50, 100, 4}}, nil, 5, 10, 0, 100, []Window{{0, 50, 40}}},
		{"a window must be long enough", []Level{{0, 100, 1}}, []Use{{5, 20, 1}}, 1, 10, 0, 30, []Window{{20, 30, 20}}},
		{"back to back uses leave no gap", []Level{{0, 100, 1}}, []Use{{0, 50, 1}, {50, 100, 1}}, 1, 1, 0, 100, nil},
		{"[start, end): a use ending at t frees t", []Level{{0, 100, 1}}, []Use{{0, 40, 1}}, 1, 60, 0, 100, []Window{{40, 100, 40}}},
		{"over capacity is negative free", []Level{{0, 100, 1}}, []Use{{0, 100, 2}}, 0, 1, 0, 100, nil},
		{"a window is clipped to the request", []Level{{0, 1000, 2}}, nil, 2, 10, 100, 200, []Window{{100, 200, 190}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Availability(tt.levels, tt.uses, tt.from, tt.to, tt.units, tt.duration)
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("got %+v, want %+v", got, tt.want)
				}
			}
		})
	}
}

// bruteCapacity checks every time unit: the capacity and use at each
// instant by scanning every declaration, and every possible start of a
// booking by checking each instant it would cover.
type bruteCapacity struct {
	levels []Level
	uses   []Use
}

func (b bruteCapacity) at(t int64) (capacity, used int) {
	for _, l := range b.levels {
		if l.From <= t && t < l.To {
			capacity = l.Units
		}
	}
	for _, u := range b.uses {
		if u.From <= t && t < u.To {
			used += u.Units
		}
	}
	return capacity, used
}

func (b bruteCapacity) fits(start, duration int64, units int) bool {
	for t := start; t < start+duration; t++ {
		c, u := b.at(t)
		if c-u < units {
			return false
		}
	}
	return true
}

// randomCalendar makes non-overlapping levels and random uses on [0, span).
func randomCalendar(r *rand.Rand, span int64) ([]Level, []Use) {
	var levels []Level
	for t := int64(0); t < span; {
		length := 1 + r.Int64N(span/3+1)
		if r.IntN(4) > 0 {
			levels = append(levels, Level{From: t, To: min(t+length, span), Units: r.IntN(7)})
		}
		t += length
	}
	uses := make([]Use, r.IntN(25))
	for i := range uses {
		a := r.Int64N(span)
		uses[i] = Use{From: a, To: min(span, a+1+r.Int64N(span/4+1)), Units: 1 + r.IntN(3)}
	}
	return levels, uses
}

// TestAvailabilityAgainstBruteForce compares the sweep with checking every
// minute of 500 random days and every second of 100 random two-hour spans.
func TestAvailabilityAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	assertions := 0
	for _, run := range []struct {
		calendars int
		span      int64 // time units: minutes of a day, seconds of two hours
	}{{500, 24 * 60}, {100, 2 * 3600}} {
		for n := 0; n < run.calendars; n++ {
			levels, uses := randomCalendar(r, run.span)
			b := bruteCapacity{levels, uses}
			from := r.Int64N(run.span / 2)
			to := from + 1 + r.Int64N(run.span-from)
			// The timeline, instant by instant.
			for _, s := range Timeline(levels, uses, from, to) {
				for _, t0 := range []int64{s.From, (s.From + s.To) / 2, s.To - 1} {
					c, u := b.at(t0)
					assertions++
					if c != s.Capacity || u != s.Used || s.Free != c-u {
						t.Fatalf("calendar %d: at %d the timeline says %+v, brute force %d/%d", n, t0, s, c, u)
					}
				}
			}
			// Every possible start of every request.
			for trial := 0; trial < 3; trial++ {
				units, duration := 1+r.IntN(4), 1+r.Int64N(run.span/6+1)
				windows := Availability(levels, uses, from, to, units, duration)
				for start := from; start+duration <= to; start++ {
					inWindow := false
					for _, w := range windows {
						inWindow = inWindow || (w.From <= start && start <= w.LatestStart)
					}
					assertions++
					if want := b.fits(start, duration, units); inWindow != want {
						t.Fatalf("calendar %d: %d units × %d from %d: windows %+v say %v, brute force %v", n, units, duration, start, windows, inWindow, want)
					}
				}
				for _, w := range windows {
					// Maximal: one unit more on either side would not fit.
					assertions++
					if (w.From > from && b.fits(w.From-1, 1, units)) || (w.To < to && b.fits(w.To, 1, units)) {
						t.Fatalf("calendar %d: window %+v is not maximal", n, w)
					}
				}
				a := from + r.Int64N(to-from)
				z := a + 1 + r.Int64N(to-a)
				assertions++
				if got, want := CanBook(levels, uses, a, min(z, to), units), b.fits(a, min(z, to)-a, units); got != want {
					t.Fatalf("calendar %d: CanBook(%d, %d, %d) = %v, brute force %v", n, a, z, units, got, want)
				}
			}
		}
	}
	t.Logf("%d assertions over 500 minute calendars and 100 second calendars", assertions)
}

// poolFx is a business with a pool whose lanes change over the day: 6 lanes
// 06:00–09:00 and 4 lanes 09:00–22:00 on Tuesdays and Thursdays, none
// otherwise.
func poolFx() *fx {
	f := newFx()
	f.Capacity = []CapacityRule{
		{ID: 1, RoomID: pool, Weekdays: []time.Weekday{time.Tuesday, time.Thursday}, Start: MustTime("06:00"), End: MustTime("09:00"), Units: 6},
		{ID: 2, RoomID: pool, Weekdays: []time.Weekday{time.Tuesday, time.Thursday}, Start: MustTime("09:00"), End: MustTime("22:00"), Units: 4},
	}
	return f
}

func TestCapacityProfileClashes(t *testing.T) {
	tests := []struct {
		name  string
		build func(f *fx)
		want  []string
	}{
		{"5 lanes fit before 9", func(f *fx) {
			f.weekly("A", pool, "Tue 07:00-08:00", f.class(swim, mei), units(3))
			f.weekly("B", pool, "Tue 07:00-08:00", f.class(swim, ahmed), units(2))
		}, nil},
		{"5 lanes do not fit after 9", func(f *fx) {
			f.weekly("A", pool, "Tue 10:00-11:00", f.class(swim, mei), units(3))
			f.weekly("B", pool, "Tue 10:00-11:00", f.class(swim, ahmed), units(2))
		}, []string{"ROOM 2026-10-06 every 1 forever"}},
		{"crossing the change of level", func(f *fx) {
			f.weekly("A", pool, "Tue 08:00-10:00", f.class(swim, mei), units(5))
		}, []string{"ROOM 2026-10-06 every 1 forever"}},
		{"a session when the pool has no lanes", func(f *fx) {
			f.weekly("A", pool, "Wed 10:00-11:00", f.class(swim, mei), units(1))
		}, []string{"ROOM 2026-10-07 every 1 forever"}},
		{"the whole room takes what there is", func(f *fx) {
			f.weekly("A", pool, "Tue 07:00-08:00", f.class(swim, mei))
			f.weekly("B", pool, "Tue 10:00-11:00", f.class(swim, ahmed))
		}, nil},
		{"an override lowers one date", func(f *fx) {
			f.weekly("A", pool, "Tue 10:00-11:00", f.class(swim, mei), units(3))
			f.Capacity = append(f.Capacity, CapacityRule{ID: 3, RoomID: pool, From: MustParse("2026-10-13"), To: MustParse("2026-10-13"),
				Start: MustTime("08:00"), End: MustTime("20:00"), Units: 2})
		}, []string{"ROOM 2026-10-13 once"}},
		{"a room booking counts", func(f *fx) {
			f.weekly("A", pool, "Tue 10:00-11:00", f.class(swim, mei), units(3))
			f.RoomBookings = []RoomBooking{{ID: 1, RoomID: pool, Date: MustParse("2026-10-20"), Start: MustTime("10:30"), End: MustTime("11:30"), Units: 2}}
		}, []string{"ROOM 2026-10-20 once"}},
		{"a cancelled booking does not", func(f *fx) {
			f.weekly("A", pool, "Tue 10:00-11:00", f.class(swim, mei), units(3))
			f.RoomBookings = []RoomBooking{{ID: 1, RoomID: pool, Date: MustParse("2026-10-20"), Start: MustTime("10:30"), End: MustTime("11:30"), Units: 2, Cancelled: true}}
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := poolFx()
			tc.build(f)
			r := f.timetable(t).Clashes(MustParse("2026-10-05"))
			var got []string
			for _, c := range r.Clashes {
				got = append(got, describeClash(c))
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				var msgs []string
				for _, c := range r.Clashes {
					msgs = append(msgs, c.Message)
				}
				t.Errorf("got %q, want %q\n%s", got, tc.want, strings.Join(msgs, "\n"))
			}
		})
	}
}

func TestCapacityRuleValidation(t *testing.T) {
	f := poolFx()
	f.Capacity = append(f.Capacity,
		CapacityRule{ID: 3, RoomID: pool, Weekdays: []time.Weekday{time.Thursday}, Start: MustTime("21:00"), End: MustTime("23:00"), Units: 2},
		CapacityRule{ID: 4, RoomID: pool, Start: MustTime("10:00"), End: MustTime("11:00"), Units: 1})
	err := Validate(f.State)
	if err == nil || !strings.Contains(err.Error(), "capacity rules may not overlap") || !strings.Contains(err.Error(), "a weekly rule needs at least one day") {
		t.Errorf("got %v", err)
	}
}

// TestRoomAvailabilityAcrossDST asks a Berlin pool for 2 lanes on the day
// the clocks spring forward: the levels and sessions are wall-clock times,
// the answer is instants.
func TestRoomAvailabilityAcrossDST(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	f := newFx()
	f.Business.Location = berlin
	f.Capacity = []CapacityRule{{ID: 1, RoomID: pool, Weekdays: []time.Weekday{time.Sunday}, Start: MustTime("01:00"), End: MustTime("05:00"), Units: 3}}
	f.weekly("A", pool, "Sun 03:00-04:00", f.class(swim, mei), units(2))
	tt := f.timetable(t)
	day := MustParse("2027-03-28")
	from, to := day.At(0, berlin), day.AddDays(1).At(0, berlin)
	got := tt.RoomAvailability(pool, from, to, berlin, 2, 30*time.Minute)
	// 01:00 CET = 00:00Z; the clocks jump at 01:00Z (02:00 → 03:00); the
	// session 03:00–04:00 CEST is 01:00Z–02:00Z; 05:00 CEST is 03:00Z.
	want := []Window{
		{From: time.Date(2027, 3, 28, 0, 0, 0, 0, time.UTC).Unix(), To: time.Date(2027, 3, 28, 1, 0, 0, 0, time.UTC).Unix()},
		{From: time.Date(2027, 3, 28, 2, 0, 0, 0, time.UTC).Unix(), To: time.Date(2027, 3, 28, 3, 0, 0, 0, time.UTC).Unix()},
	}
	for i := range want {
		want[i].LatestStart = want[i].To - 1800
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %+v, want %+v", got, want)
	}
	tl := tt.RoomTimeline(pool, from, to, berlin)
	if len(tl) != 5 || tl[2].Used != 2 || tl[2].Capacity != 3 {
		t.Errorf("timeline %+v", tl)
	}
}
