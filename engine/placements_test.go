package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	_ "time/tzdata"
)

// placementCase is a generated business and a placement request on it.
type placementCase struct {
	s     State
	today Date
	req   PlacementRequest
	// horizon is the last date the oracle resolves: every rule's dates are
	// behind it by at least the lcm of the rotations, so what follows
	// repeats what it saw.
	horizon Date
}

// The new series and class time the oracle and the write test add: ids no
// generated row has.
const (
	newSeriesID = 9000
	newCTID     = 9000
)

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// randomPlacement generates a business with time off and hours, and a
// placement request on it; ok is false when the business is not valid or
// its rotations repeat too rarely for the oracle.
func randomPlacement(r *rand.Rand, fungible bool) (placementCase, bool) {
	s, today, from, to := randomState(r)
	addCoverRules(r, &s, from, to)
	if fungible {
		// Rooms of a few units, sessions taking some of them: overloads of
		// three and more, whose members must all meet in one week.
		for i := range s.Rooms {
			s.Rooms[i].Capacity = 3 + r.IntN(2)
		}
		for i := range s.ClassTimes {
			s.ClassTimes[i].Units = 1 + r.IntN(2)
		}
		s.Capacity = slices.DeleteFunc(s.Capacity, func(c CapacityRule) bool { return c.Units < 3 })
	}
	switch r.IntN(3) {
	case 1:
		s.Business.Location, _ = time.LoadLocation("Europe/Berlin")
	case 2:
		s.Business.Location, _ = time.LoadLocation("America/New_York")
	}
	if Validate(s) != nil {
		return placementCase{}, false
	}
	ws := s.Business.WeekStart
	q := PlacementRequest{
		ClassID:  s.Classes[r.IntN(len(s.Classes))].ID,
		Minutes:  15 * (1 + r.IntN(8)),
		Cycle:    1 + r.IntN(4),
		Earliest: LocalTime(7*60 + 30*r.IntN(4)),
		Step:     15 * (1 + r.IntN(3)),
		From:     today + Date(7*(r.IntN(9)-4)+r.IntN(7)),
		// The generator's class times fall on three days; one more holds
		// only what is dated.
		Weekdays: []time.Weekday{ws, (ws + 6) % 7, (ws + 3) % 7},
	}
	q.Latest = q.Earliest + LocalTime(5*60+15*r.IntN(8))
	if r.IntN(6) == 0 {
		q.Latest = EndOfDay // the buffer meets midnight
		q.Earliest = LocalTime(20 * 60)
	}
	if r.IntN(3) == 0 {
		q.Buffer = 5 * r.IntN(5)
	}
	if r.IntN(2) == 0 || fungible {
		q.Units = 1 + r.IntN(3)
	}
	// The last date anything is about, and the lcm of the rotations.
	last := max(to, today+7)
	l := q.Cycle
	see := func(d Date) {
		if d != 0 && d < MaxDate-10 {
			last = max(last, d)
		}
	}
	for _, sr := range s.Series {
		l = l * sr.Cycle / gcd(l, sr.Cycle)
		see(sr.Anchor)
		see(sr.End)
	}
	for _, c := range s.Changes {
		see(c.Ref.Date)
		see(c.Date)
	}
	for _, o := range s.OneOffs {
		see(o.Date)
	}
	for _, c := range s.Closures {
		see(c.To)
	}
	for _, c := range s.Capacity {
		see(c.To)
	}
	for _, b := range s.RoomBookings {
		see(b.Date)
	}
	for _, o := range s.TimeOffs {
		see(o.To)
	}
	for _, h := range s.Hours {
		see(h.From)
	}
	see(q.From)
	if l > 60 {
		return placementCase{}, false
	}
	return placementCase{s: s, today: today, req: q, horizon: last + Date(7*(l+2))}, true
}

// withPlacement returns s with the class times at starts in room on wd
// (ids newCTID+i), each with an entry in every one of weeks of a new series
// of q's rotation anchored on the week of from.
func withPlacement(s State, q PlacementRequest, from Date, room int64, wd time.Weekday, starts []LocalTime, weeks []int) State {
	s = s.Clone()
	s.Series = append(s.Series, Series{ID: newSeriesID, Name: "Placement", Cycle: q.Cycle, Anchor: from.WeekStart(s.Business.WeekStart)})
	for i, st := range starts {
		id := int64(newCTID + i)
		s.ClassTimes = append(s.ClassTimes, ClassTime{ID: id, RoomID: room, Weekday: wd, Start: st, End: st + LocalTime(q.Minutes),
			Units: q.Units, Buffer: q.Buffer})
		for _, k := range weeks {
			s.Entries = append(s.Entries, Entry{ID: int64(newCTID + 100*i + k), SeriesID: newSeriesID, ClassTimeID: id, ClassID: q.ClassID, Week: k})
		}
	}
	return s
}

func placementKey(p Placement) string {
	return fmt.Sprintf("room %d %s %s–%s week %d", p.RoomID, p.Weekday, p.Start, p.End, p.Week)
}

// TestPlacementsAgainstOracle compares Placements, on generated businesses
// with day changes, moves, one-offs, closures and pauses, capacity rules,
// units, buffers, room bookings, time off, working hours and rotations of
// up to 12 weeks, with a brute-force oracle: the business with every start
// of a room and weekday added, in every week of the new rotation, is
// resolved day by day from the week of today to past the last dated thing
// plus the lcm of the rotations, and a start is a placement in a week
// exactly when on no date its session is in a clash the engine's own day
// rule (dayClashes) finds among that day's sessions, with no other start,
// nor leaves one of its staff away or outside their hours. The fungible
// cases fill rooms of a few units with sessions taking one or two, so that
// overloads of three and more sessions, met in one week, count.
func TestPlacementsAgainstOracle(t *testing.T) {
	t.Run("mixed", func(t *testing.T) { comparePlacements(t, rand.New(rand.NewPCG(31, 3)), 250, false) })
	t.Run("fungible", func(t *testing.T) { comparePlacements(t, rand.New(rand.NewPCG(31, 6)), 150, true) })
}

func comparePlacements(t *testing.T, r *rand.Rand, want int, fungible bool) {
	cases, placed, left := 0, 0, 0
	for tries := 0; cases < want; tries++ {
		if tries > 20*want {
			t.Fatalf("only %d of %d generated cases were usable", cases, tries)
		}
		c, ok := randomPlacement(r, fungible)
		if !ok {
			continue
		}
		cases++
		tt, err := New(c.s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tt.Placements(c.today, c.req, nil)
		if err != nil {
			t.Fatalf("case %d: %v", cases, err)
		}
		oracle, out := oraclePlacements(t, tt, c)
		left += out
		placed += len(oracle)
		if !slices.Equal(got, oracle) {
			g, o := map[string]bool{}, map[string]bool{}
			for _, p := range got {
				g[placementKey(p)] = true
			}
			for _, p := range oracle {
				o[placementKey(p)] = true
			}
			var diff []string
			for k := range g {
				if !o[k] {
					diff = append(diff, "only Placements: "+k)
				}
			}
			for k := range o {
				if !g[k] {
					diff = append(diff, "only the oracle: "+k)
				}
			}
			slices.Sort(diff)
			t.Fatalf("case %d (today %s, request %+v): %d placements, the oracle %d:\n%v\nstate: %+v", cases, c.today, c.req, len(got), len(oracle), diff, c.s)
		}
	}
	if placed == 0 || left == 0 {
		t.Fatalf("%d placed and %d left out: the test proves little", placed, left)
	}
	t.Logf("%d cases, %d placements and %d left out matched", cases, placed, left)
}

// TestPlacementsAgainstTheWrite holds Placements to the guarded write's
// own verdict on generated businesses: a placement, written as its class
// time, a new series and the entry, adds no clash (NewClashes) and no
// session needing cover (NewUncovered); and every start of the grid left
// out adds one or the other.
func TestPlacementsAgainstTheWrite(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 4))
	const want = 200
	cases, placed, left := 0, 0, 0
	for tries := 0; cases < want; tries++ {
		if tries > 20*want {
			t.Fatalf("only %d of %d generated cases were usable", cases, tries)
		}
		c, ok := randomPlacement(r, cases%2 == 1)
		if !ok {
			continue
		}
		cases++
		tt, err := New(c.s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tt.Placements(c.today, c.req, nil)
		if err != nil {
			t.Fatalf("case %d: %v", cases, err)
		}
		q, _ := tt.placementRequest(c.today, c.req)
		clashes, uncovered := tt.Clashes(c.today), tt.Uncovered(c.today)
		is := map[string]bool{}
		for _, p := range got {
			is[placementKey(p)] = true
		}
		for n := 0; n < 8; n++ {
			room := q.RoomIDs[r.IntN(len(q.RoomIDs))]
			wd := q.Weekdays[r.IntN(len(q.Weekdays))]
			span := int(q.Latest-q.Earliest) - q.Minutes
			if span < 0 || q.Units > peakUnits(tt.rooms[room], tt.rules[room]) {
				continue
			}
			st := q.Earliest + LocalTime(q.Step*r.IntN(span/q.Step+1))
			k := q.Weeks[r.IntN(len(q.Weeks))]
			if n < 4 && len(got) > 0 { // half of them placements
				p := got[r.IntN(len(got))]
				room, wd, st, k = p.RoomID, p.Weekday, p.Start, p.Week
			}
			after, err := New(withPlacement(c.s, q, q.From, room, wd, []LocalTime{st}, []int{k}))
			if err != nil {
				t.Fatalf("case %d: the write is not valid: %v", cases, err)
			}
			added := NewClashes(clashes, after.Clashes(c.today))
			away := NewUncovered(uncovered, after.Uncovered(c.today))
			p := Placement{RoomID: room, Weekday: wd, Start: st, End: st + LocalTime(q.Minutes), Week: k}
			fine := len(added) == 0 && len(away) == 0
			if fine != is[placementKey(p)] {
				var said []string
				for _, cl := range added {
					said = append(said, cl.Message)
				}
				for _, u := range away {
					said = append(said, after.Message(&u, c.today))
				}
				t.Fatalf("case %d (today %s, request %+v): %s: the write adds nothing: %v, a placement: %v\n%v\nstate: %+v",
					cases, c.today, c.req, placementKey(p), fine, is[placementKey(p)], said, c.s)
			}
			if fine {
				placed++
			} else {
				left++
			}
		}
	}
	if placed == 0 || left == 0 {
		t.Fatalf("%d placed and %d left out: the test proves little", placed, left)
	}
	t.Logf("%d cases, %d placements and %d left out agreed with the write", cases, placed, left)
}

func ExampleTimetable_Placements() {
	s := State{Business: Business{Kind: Gym, Name: "Harbor", Currency: "KD", Location: time.UTC},
		Rooms:      []Room{{ID: 1, Name: "Ring"}},
		Staff:      []Staff{{ID: 1, Name: "Marco Reyes"}, {ID: 2, Name: "Ana Lima"}},
		Activities: []Activity{{ID: 1, Name: "Boxing"}, {ID: 2, Name: "Yoga"}},
		Classes:    []Class{{ID: 1, ActivityID: 1, StaffIDs: []int64{1}}, {ID: 2, ActivityID: 2, StaffIDs: []int64{2}}},
		ClassTimes: []ClassTime{{ID: 1, RoomID: 1, Weekday: time.Monday, Start: MustTime("18:00"), End: MustTime("19:00")}},
		Series:     []Series{{ID: 1, Name: "Fight Club", Anchor: MustDate(2026, 11, 29), Cycle: 2}},
		Entries:    []Entry{{ID: 1, SeriesID: 1, ClassTimeID: 1, ClassID: 1, Week: 1}},
	}
	tt, err := New(s)
	if err != nil {
		panic(err)
	}
	// Where can an hour of Yoga go on Mondays between 17:00 and 20:00, in
	// a two-week rotation from this week on? Boxing holds the Ring in week
	// 1 of both rotations.
	ps, err := tt.Placements(MustDate(2026, 12, 1), PlacementRequest{ClassID: 2, Minutes: 60, Cycle: 2,
		Weekdays: []time.Weekday{time.Monday}, Earliest: MustTime("17:00"), Latest: MustTime("20:00"), Step: 30}, nil)
	if err != nil {
		panic(err)
	}
	for _, p := range ps {
		fmt.Println(p.Weekday, p.Start, p.End, "week", p.Week)
	}
	// Output:
	// Monday 17:00 18:00 week 1
	// Monday 17:00 18:00 week 2
	// Monday 17:30 18:30 week 2
	// Monday 18:00 19:00 week 2
	// Monday 18:30 19:30 week 2
	// Monday 19:00 20:00 week 1
	// Monday 19:00 20:00 week 2
}

// oraclePlacements is the brute-force answer to c's request: the business
// with every start of a room and weekday added (in every week of the new
// rotation) resolved date by date to c's horizon; and how many grid points
// it leaves out.
func oraclePlacements(t *testing.T, tt *Timetable, c placementCase) (oracle []Placement, left int) {
	t.Helper()
	q, _ := tt.placementRequest(c.today, c.req)
	var starts []LocalTime
	for st := q.Earliest; st+LocalTime(q.Minutes) <= q.Latest; st += LocalTime(q.Step) {
		starts = append(starts, st)
	}
	for _, room := range q.RoomIDs {
		if q.Units > peakUnits(tt.rooms[room], tt.rules[room]) {
			continue // no class time may ask for more units than the room ever has
		}
		for _, wd := range q.Weekdays {
			after, err := New(withPlacement(c.s, q, q.From, room, wd, starts, q.Weeks))
			if err != nil {
				t.Fatalf("the business with the starts added is not valid: %v", err)
			}
			blocked := map[[2]int]bool{} // start, week
			for d := DayIn(WeekOf(c.today, tt.ws), wd, tt.ws); d <= c.horizon; d += 7 {
				day := after.Day(d)
				at := map[int]int{} // index of a start's session → the start
				for i := range day {
					if x := &day[i]; x.ClassTimeID >= newCTID && !x.Cancelled {
						at[i] = int(x.ClassTimeID - newCTID)
						for _, sw := range x.Series {
							if sw.SeriesID == newSeriesID && len(after.NeedsCover(x)) > 0 {
								blocked[[2]int{at[i], sw.Week}] = true
							}
						}
					}
				}
				dayClashes(after, d, day, after.bookings[d], func() bool { return false }, func(_ ClashKind, _, _ string, members []int) {
					mine := -1
					for _, m := range members {
						if m >= len(day) {
							continue
						}
						if i, ok := at[m]; ok {
							if mine >= 0 {
								return // two starts: not one placement
							}
							mine = i
						}
					}
					if mine < 0 {
						return
					}
					for m, i := range at {
						if i == mine {
							for _, sw := range day[m].Series {
								if sw.SeriesID == newSeriesID {
									blocked[[2]int{i, sw.Week}] = true
								}
							}
						}
					}
				})
			}
			for i, st := range starts {
				for _, k := range q.Weeks {
					if !blocked[[2]int{i, k}] {
						oracle = append(oracle, Placement{RoomID: room, Weekday: wd, Start: st, End: st + LocalTime(q.Minutes), Week: k})
					} else {
						left++
					}
				}
			}
		}
	}
	return oracle, left
}

// TestPlacementsAcrossDST asks for a placement of the span of each
// daylight-saving case of TestNeedsCoverAcrossDST, in the week of its
// date: wall-clock times, as a session's, so the placement is there
// exactly when the staff member is not away for that session on that date
// (and, the case says, in instants too).
func TestPlacementsAcrossDST(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	newYork, _ := time.LoadLocation("America/New_York")
	cases := []struct {
		name       string
		loc        *time.Location
		date       string
		start, end string
		off        TimeOff
		away       bool
	}{
		{"berlin spring forward: ends where the time off starts", berlin, "2026-03-29", "01:30", "02:30",
			TimeOff{From: MustDate(2026, 3, 29), To: MustDate(2026, 3, 30), FromTime: MustTime("02:30")}, false},
		{"berlin spring forward: in the gap", berlin, "2026-03-29", "02:00", "03:00",
			TimeOff{From: MustDate(2026, 3, 29), To: MustDate(2026, 3, 29), FromTime: MustTime("02:30")}, true},
		{"berlin fall back: the repeated hour", berlin, "2026-10-25", "02:00", "03:00",
			TimeOff{From: MustDate(2026, 10, 24), To: MustDate(2026, 10, 25), ToTime: MustTime("02:30")}, true},
		{"new york fall back: starts before the time off ends", newYork, "2026-11-01", "01:00", "02:00",
			TimeOff{From: MustDate(2026, 10, 31), To: MustDate(2026, 11, 1), ToTime: MustTime("01:30")}, true},
		{"new york fall back: starts as the time off ends", newYork, "2026-11-01", "01:30", "02:30",
			TimeOff{From: MustDate(2026, 10, 31), To: MustDate(2026, 11, 1), ToTime: MustTime("01:30")}, false},
		{"new york spring forward: a whole day away", newYork, "2026-03-08", "02:30", "03:30",
			TimeOff{From: MustDate(2026, 3, 8), To: MustDate(2026, 3, 8)}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _ := ParseDate(c.date)
			c.off.ID, c.off.StaffID = 1, 1
			s := State{Business: Business{Kind: Gym, Name: "DST", Currency: "EUR", Location: c.loc},
				Rooms: []Room{{ID: 1, Name: "Hall"}}, Staff: []Staff{{ID: 1, Name: "Ana"}}, Activities: []Activity{{ID: 1, Name: "Yoga"}},
				Classes: []Class{{ID: 1, ActivityID: 1, StaffIDs: []int64{1}}}, TimeOffs: []TimeOff{c.off}}
			tt, err := New(s)
			if err != nil {
				t.Fatal(err)
			}
			start, end := MustTime(c.start), MustTime(c.end)
			// A one-week series from the week of the date, asked the week
			// before: its first session is on the date.
			ps, err := tt.Placements(d-7, PlacementRequest{ClassID: 1, Minutes: int(end - start), From: d,
				Weekdays: []time.Weekday{d.Weekday()}, Earliest: start, Latest: end}, nil)
			if err != nil {
				t.Fatal(err)
			}
			x := Session{Date: d, Start: start, End: end, StaffIDs: []int64{1}}
			if got, needs := len(ps) == 0, len(tt.NeedsCover(&x)) > 0; got != c.away || needs != c.away {
				t.Errorf("left out: %v, NeedsCover: %v, want %v (placements %+v)", got, needs, c.away, ps)
			}
		})
	}
}
