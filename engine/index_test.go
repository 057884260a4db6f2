package engine

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// The index and the buffers it lets Day, Days and RoomUsage reuse are
// checked here against the plain ways of doing the same: Day against the
// brute-force oracle is in random_test.go.

// TestDaysAgainstDay resolves the windows of random states both ways: Days,
// which resolves runs of dates into shared arrays, gives each date what Day
// gives it, and appending to one date's sessions never reaches the next.
func TestDaysAgainstDay(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 1))
	for n := 0; n < 300; {
		s, _, from, to := randomState(r)
		if Validate(s) != nil {
			continue
		}
		n++
		tt := compile(s)
		days := tt.Days(from, to)
		if len(days) != int(to-from) {
			t.Fatalf("state %d: %d days, want %d", n, len(days), to-from)
		}
		for i, day := range days {
			want := tt.Day(from + Date(i))
			if day.Date != from+Date(i) || !reflect.DeepEqual(day.Sessions, want) {
				t.Fatalf("state %d, %s: Days gives\n %+v\nDay gives\n %+v", n, day.Date, day.Sessions, want)
			}
		}
		for i := 0; i+1 < len(days); i++ {
			next := slices.Clone(days[i+1].Sessions)
			_ = append(days[i].Sessions, Session{Label: "appended"})
			if !reflect.DeepEqual(days[i+1].Sessions, next) {
				t.Fatalf("state %d: appending to %s changed %s", n, days[i].Date, days[i+1].Date)
			}
		}
	}
}

// TestActiveInAgainstEntries compares the shared slices activeIn answers
// with with listing the active entries afresh, over random states and
// weeks, including groups several series share.
func TestActiveInAgainstEntries(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 2))
	shared := 0
	for n := 0; n < 300; {
		s, _, from, to := randomState(r)
		// Put some classes in more series, so that groups hold entries
		// that are active apart.
		for i, e := range s.Entries {
			if r.IntN(3) == 0 && len(s.Series) > 1 {
				e.ID, e.SeriesID = int64(1000+i), s.Series[r.IntN(len(s.Series))].ID
				e.Week = 1 + r.IntN(s.Series[slices.IndexFunc(s.Series, func(x Series) bool { return x.ID == e.SeriesID })].Cycle)
				s.Entries = append(s.Entries, e)
			}
		}
		if Validate(s) != nil {
			continue
		}
		n++
		tt := compile(s)
		for gi := range tt.groups {
			g := &tt.groups[gi]
			if len(g.entries) > 1 {
				shared++
			}
			for w := WeekOf(from, tt.ws) - 3; w <= WeekOf(to, tt.ws); w++ {
				var want []SeriesWeek
				for _, e := range g.entries {
					if e.rot.Position(w) == e.week {
						want = append(want, SeriesWeek{SeriesID: e.series.ID, Week: e.week, Cycle: e.series.Cycle})
					}
				}
				weeks := slices.Clone(g.weeks)
				got := g.activeIn(w)
				if !slices.Equal(got, want) || (got == nil) != (want == nil) {
					t.Fatalf("state %d, group %d, week %d: activeIn %v, want %v", n, gi, w, got, want)
				}
				if _ = append(got, SeriesWeek{SeriesID: -1}); !slices.Equal(g.weeks, weeks) {
					t.Fatalf("state %d, group %d, week %d: appending to activeIn's answer changed the group", n, gi, w)
				}
			}
		}
	}
	if shared == 0 {
		t.Fatal("no group held more than one entry")
	}
}

// zones are time zones whose rules are awkward: half-hour and 45-minute
// offsets, a 30-minute daylight-saving shift, a date skipped (Apia,
// 2011-12-30), daylight saving suspended for Ramadan, a zone south of the
// equator, and UTC.
var zones = []string{"UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia",
	"Africa/Casablanca", "America/Santiago", "Pacific/Chatham", "America/St_Johns", "Asia/Kolkata",
	"America/Scoresbysund", "Europe/Dublin"}

func loadZones(t *testing.T) []*time.Location {
	var out []*time.Location
	for _, name := range zones {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, loc)
	}
	return out
}

// TestDayClockAgainstAt compares dayClock with Date.At on every date of
// years with transitions of every kind, at every half hour, at midnight at
// both ends of the date and at a random minute.
func TestDayClockAgainstAt(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 3))
	checked := 0
	for _, loc := range loadZones(t) {
		for _, year := range []int{1916, 1996, 2011, 2026, 2027, 2150} {
			var c dayClock
			for d := MustDate(year, 1, 1); d < MustDate(year+1, 1, 1); d++ {
				c.set(d, loc)
				for m := int64(0); m <= int64(EndOfDay); m += 30 {
					for _, m := range []int64{m, min(m+r.Int64N(30), int64(EndOfDay))} {
						checked++
						if got, want := c.at(m), d.At(LocalTime(m), loc).Unix(); got != want {
							t.Fatalf("%s %s minute %d: dayClock %d, Date.At %d", loc, d, m, got, want)
						}
					}
				}
			}
		}
	}
	t.Logf("%d times checked", checked)
}

// TestRoomUsageAgainstPlain compares RoomUsage with roomUsagePlain, the way
// it was written before the index (every date resolved afresh, every time
// through Date.At), for every room of random states in awkward time zones
// (their windows, more than a year long, hold the year's transitions), over
// ranges of instants that start and end at any second.
func TestRoomUsageAgainstPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 4))
	locs := loadZones(t)
	uses := 0
	for n := 0; n < 300; {
		s, _, from, to := randomState(r)
		s.Business.Location = locs[r.IntN(len(locs))]
		if Validate(s) != nil {
			continue
		}
		n++
		tt := compile(s)
		loc := s.Business.Location
		for range 3 {
			a := from + Date(r.IntN(int(to-from)))
			b := a + Date(r.IntN(40))
			fromAt := a.At(0, loc).Add(time.Duration(r.IntN(86400)) * time.Second)
			toAt := b.At(0, loc).Add(time.Duration(r.IntN(86400)) * time.Second)
			for _, room := range s.Rooms {
				gotL, gotU := tt.RoomUsage(room.ID, fromAt, toAt, loc)
				wantL, wantU := roomUsagePlain(tt, room.ID, fromAt, toAt, loc)
				uses += len(wantU)
				if !slices.Equal(gotL, wantL) || !slices.Equal(gotU, wantU) {
					t.Fatalf("state %d, room %d, %s..%s in %s:\n got %v\n     %v\nwant %v\n     %v", n, room.ID, fromAt, toAt, loc, gotL, gotU, wantL, wantU)
				}
			}
		}
	}
	t.Logf("%d uses compared", uses)
}

// roomUsagePlain is RoomUsage as it was written before the index.
func roomUsagePlain(t *Timetable, room int64, from, to time.Time, loc *time.Location) (levels []Level, uses []Use) {
	rules := t.rules[room]
	dayLevels := func(d Date) []Level {
		if len(rules) == 0 {
			return []Level{{From: 0, To: int64(EndOfDay), Units: t.rooms[room].Units()}}
		}
		if t.overridden(room, d) {
			return levelsOf(rules, func(r *CapacityRule) bool { return r.Override() && r.From <= d && d <= r.To })
		}
		return levelsOf(rules, func(r *CapacityRule) bool { return !r.Override() && slices.Contains(r.Weekdays, d.Weekday()) })
	}
	wholeRoom := func(start, end LocalTime, levels []Level) []Use {
		cuts := []int64{int64(start), int64(end)}
		for _, l := range levels {
			for _, c := range []int64{l.From, l.To} {
				if int64(start) < c && c < int64(end) {
					cuts = append(cuts, c)
				}
			}
		}
		slices.Sort(cuts)
		cuts = slices.Compact(cuts)
		out := make([]Use, 0, len(cuts)-1)
		for i := 0; i+1 < len(cuts); i++ {
			out = append(out, Use{From: cuts[i], To: cuts[i+1], Units: max(levelAt(levels, cuts[i]), 1)})
		}
		return out
	}
	first, last := DateOf(from.In(loc)).AddDays(-1), DateOf(to.In(loc))
	for d := first; d <= last; d++ {
		dayLevels := dayLevels(d)
		at := func(m int64) int64 { return d.At(LocalTime(m), loc).Unix() }
		for _, l := range dayLevels {
			levels = append(levels, Level{From: at(l.From), To: at(l.To), Units: l.Units})
		}
		use := func(start, end LocalTime, units int, whole bool) {
			if !whole {
				uses = append(uses, Use{From: at(int64(start)), To: at(int64(end)), Units: units})
				return
			}
			for _, p := range wholeRoom(start, end, dayLevels) {
				uses = append(uses, Use{From: at(p.From), To: at(p.To), Units: p.Units})
			}
		}
		for _, s := range t.Day(d) {
			if !s.Cancelled && s.RoomID == room {
				use(s.Start, occupiedUntil(s.End, int(s.Buffer)), int(s.Units), t.takesWholeRoom(&s))
			}
		}
		for _, b := range t.bookings[d] {
			if !b.Cancelled && b.RoomID == room {
				use(b.Start, b.End, b.Units, b.Units == 0)
			}
		}
	}
	return levels, uses
}

// TestTimelineFarApart checks the sweep where the times are too far apart
// to sort packed (see byTime) against the same calendar close together:
// stretched by 2⁴⁵, the timeline stretches with it.
func TestTimelineFarApart(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 5))
	const k = 1 << 45
	for n := 0; n < 500; n++ {
		levels, uses := randomCalendar(r, 7200)
		from := r.Int64N(3600)
		to := from + 1 + r.Int64N(7200-from)
		near := Timeline(levels, uses, from, to)
		for i := range levels {
			levels[i].From, levels[i].To = levels[i].From*k, levels[i].To*k
		}
		for i := range uses {
			uses[i].From, uses[i].To = uses[i].From*k, uses[i].To*k
		}
		far := Timeline(levels, uses, from*k, to*k)
		for i := range near {
			near[i].From, near[i].To = near[i].From*k, near[i].To*k
		}
		if !slices.Equal(far, near) {
			t.Fatalf("calendar %d: far apart %v, close together (stretched) %v", n, far, near)
		}
	}
}

// TestDayOrderAgainstSort checks the order Day gives a date against
// sorting its sessions afresh, on random states given many day changes
// that re-time, re-room or re-class sessions (more on some dates than
// Day notes one by one), sessions moved in and one-offs.
func TestDayOrderAgainstSort(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 7))
	dates, busy := 0, 0
	for n := 0; n < 300; {
		s, _, from, to := randomState(r)
		if Validate(s) != nil {
			continue
		}
		// A weekday of many sessions, for dates of many changes.
		for i := range 14 {
			id, st := int64(100+i), LocalTime(7*60+30*i)
			s.ClassTimes = append(s.ClassTimes, ClassTime{ID: id, RoomID: s.Rooms[i%len(s.Rooms)].ID, Weekday: s.Business.WeekStart, Start: st, End: st + 45})
			s.Entries = append(s.Entries, Entry{ID: 1000 + id, SeriesID: s.Series[0].ID, ClassTimeID: id, ClassID: s.Classes[i%len(s.Classes)].ID, Week: 1})
		}
		if Validate(s) != nil {
			continue
		}
		tt := compile(s)
		// Re-time, re-room and re-class sessions, several on some dates.
		extra := slices.Clone(s.Changes)
		seen := map[SessionRef]bool{}
		for _, c := range extra {
			seen[c.Ref] = true
		}
		for d := from; d < to; d++ {
			if r.IntN(4) != 0 {
				continue
			}
			for i, x := range tt.Day(d) {
				if x.IsOneOff() || seen[x.Ref()] || x.Ref().Date != d || r.IntN(6) == 0 && i > 0 {
					continue
				}
				seen[x.Ref()] = true
				c := DayChange{Ref: x.Ref()}
				switch r.IntN(5) {
				case 0:
					st := LocalTime(6*60 + 5*r.IntN(150))
					en := st + LocalTime(15+5*r.IntN(20))
					c.Start, c.End = &st, &en
				case 1:
					c.RoomID = s.Rooms[r.IntN(len(s.Rooms))].ID
				case 2:
					c.ClassID = s.Classes[r.IntN(len(s.Classes))].ID
				case 3:
					c.Date = d + Date(r.IntN(3)) - 1
				default:
					c.Cancelled = true
				}
				extra = append(extra, c)
			}
		}
		s.Changes = extra
		if Validate(s) != nil {
			continue
		}
		n++
		tt = compile(s)
		for d := from; d < to; d++ {
			got := tt.Day(d)
			want := slices.Clone(got)
			sortSessions(want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("state %d, %s: Day gives\n %+v\nsorted afresh\n %+v", n, d, got, want)
			}
			dates++
			if x := tt.dated[d]; x != nil && len(x.changes) > 8 {
				busy++
			}
		}
	}
	if busy == 0 {
		t.Fatalf("no date of %d had more changes than Day notes one by one", dates)
	}
}

// TestByTimeAgainstSort checks the order of change points byTime gives,
// by comparison or by radix, against sorting their times: the same times
// in order, each change once.
func TestByTimeAgainstSort(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 9))
	for n := 0; n < 400; n++ {
		size := r.IntN(3 * radixFrom)
		span := int64(1) << r.IntN(44)
		from := r.Int64N(1<<40) - 1<<39
		changes := make([]change, size)
		times := make([]int64, size)
		for i := range changes {
			at := from + r.Int64N(span+1)
			if r.IntN(4) == 0 && i > 0 {
				at = changes[r.IntN(i)].at // ties
			}
			changes[i], times[i] = change{at: at, capacity: i}, at
		}
		slices.Sort(times)
		order := byTime(changes, from, from+span)
		seen := make([]bool, size)
		for i, j := range order {
			if seen[j] || changes[j].at != times[i] {
				t.Fatalf("case %d (%d changes over %d): position %d holds change %d at %d, want a time of %d once", n, size, span, i, j, changes[j].at, times[i])
			}
			seen[j] = true
		}
	}
}
