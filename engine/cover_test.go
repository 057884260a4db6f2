package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
	_ "time/tzdata"
)

// addCoverRules gives some staff of s time off and working hours within
// the window from..to.
func addCoverRules(r *rand.Rand, s *State, from, to Date) {
	days := int(to - from)
	for i := 1; i <= r.IntN(5); i++ {
		o := TimeOff{ID: int64(i), StaffID: s.Staff[r.IntN(len(s.Staff))].ID, From: from + Date(r.IntN(days)-7)}
		o.To = o.From + Date(r.IntN(3)*r.IntN(15))
		if r.IntN(2) == 0 {
			o.FromTime = LocalTime(8*60 + 15*r.IntN(16))
		}
		if r.IntN(2) == 0 {
			o.ToTime = LocalTime(8*60 + 15*r.IntN(16))
		}
		s.TimeOffs = append(s.TimeOffs, o)
	}
	wds := []time.Weekday{s.Business.WeekStart, (s.Business.WeekStart + 1) % 7, (s.Business.WeekStart + 6) % 7}
	for i := 1; i <= r.IntN(4); i++ {
		h := WorkingHours{ID: int64(i), StaffID: s.Staff[r.IntN(len(s.Staff))].ID, From: from + Date(r.IntN(days)-30)}
		if r.IntN(3) == 0 {
			h.From = MinDate // since always
		}
		for _, wd := range wds {
			at := LocalTime(6*60 + 30*r.IntN(8))
			for n := r.IntN(3); n > 0; n-- {
				end := at + LocalTime(30+30*r.IntN(10))
				h.Spans = append(h.Spans, HoursSpan{Weekday: wd, Start: at, End: end})
				at = end + LocalTime(30*r.IntN(2)) // touching or apart
			}
		}
		s.Hours = append(s.Hours, h)
	}
}

// coverKey is one staff member missing from one session on one date for
// one rule.
type coverKey struct {
	session string
	date    Date
	staff   int64
	reason  AbsenceReason
	rule    string
}

func (k coverKey) String() string {
	return fmt.Sprintf("%s %s staff %d %s %s", k.date, k.session, k.staff, k.reason, k.rule)
}

func absenceRule(a Absence) string {
	if a.Reason == OnTimeOff {
		return fmt.Sprintf("off %d", a.TimeOffID)
	}
	return fmt.Sprintf("hours %s", a.HoursFrom)
}

// oracleAbsences is the brute-force reading of the rules: minute by
// minute, the time off as an interval of (date, minute) pairs and the
// hours in force found by a scan of every set.
func oracleAbsences(s State, staff int64, d Date, start, end LocalTime) []Absence {
	var out []Absence
	before := func(d1 Date, m1 LocalTime, d2 Date, m2 LocalTime) bool { return d1 < d2 || d1 == d2 && m1 < m2 }
	for _, o := range s.TimeOffs {
		if o.StaffID != staff {
			continue
		}
		last, until := o.To, o.ToTime
		if until == 0 {
			last, until = o.To+1, 0
		}
		for m := start; m < end; m++ {
			if !before(d, m, o.From, o.FromTime) && before(d, m, last, until) {
				out = append(out, Absence{StaffID: staff, Reason: OnTimeOff, TimeOffID: o.ID})
				break
			}
		}
	}
	var in *WorkingHours
	for i := range s.Hours {
		h := &s.Hours[i]
		if h.StaffID == staff && h.From <= d && (in == nil || h.From > in.From) {
			in = h
		}
	}
	if in != nil && len(in.Spans) > 0 {
		for m := start; m < end; m++ {
			ok := false
			for _, sp := range in.Spans {
				ok = ok || sp.Weekday == d.Weekday() && sp.Start <= m && m < sp.End
			}
			if !ok {
				out = append(out, Absence{StaffID: staff, Reason: OutsideHours, HoursFrom: in.From})
				break
			}
		}
	}
	return out
}

func sortCoverKeys(ks []coverKey) {
	sort.Slice(ks, func(i, j int) bool { return ks[i].String() < ks[j].String() })
}

// TestUncoveredAgainstOracle compares the exact uncovered proof with the
// brute-force oracle on generated businesses with time off and working
// hours: every date of the window, resolved by the oracle and checked
// minute by minute, gives exactly the (session, date, staff, rule) the
// proof's progressions expand to; and Timetable.NeedsCover agrees with
// the oracle on every session of every date.
func TestUncoveredAgainstOracle(t *testing.T) {
	const want = 1500
	r := rand.New(rand.NewPCG(31, 7))
	valid, found := 0, 0
	for tries := 0; valid < want; tries++ {
		if tries > 6*want {
			t.Fatalf("only %d of %d generated states were valid", valid, tries)
		}
		s, today, from, to := randomState(r)
		addCoverRules(r, &s, from, to)
		if Validate(s) != nil {
			continue
		}
		valid++
		tt, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		o := newOracle(s)
		var oracle []coverKey
		for d := from; d < to; d++ {
			for _, x := range o.day(d) {
				if x.cancelled {
					continue
				}
				for _, p := range x.staff {
					for _, a := range oracleAbsences(s, p, d, x.start, x.end) {
						oracle = append(oracle, coverKey{x.key, d, p, a.Reason, absenceRule(a)})
					}
				}
			}
			for _, x := range tt.Day(d) {
				got, want := tt.NeedsCover(&x), []Absence(nil)
				if !x.Cancelled {
					for _, p := range x.StaffIDs {
						want = append(want, oracleAbsences(s, p, d, x.Start, x.End)...)
					}
				}
				sortAbsences(got)
				sortAbsences(want)
				if !slices.Equal(got, want) {
					t.Fatalf("state %d, %s %v: NeedsCover = %v, oracle %v", valid, d, x.Ref(), got, want)
				}
			}
		}
		var proven []coverKey
		for _, u := range tt.Uncovered(today) {
			if u.First < from {
				t.Fatalf("state %d: uncovered before the week of today: %+v", valid, u)
			}
			for _, d := range u.Dates(from, to-1) {
				key := fmt.Sprintf("s/%s/%d/%d", d, u.ClassTimeID, u.ClassID)
				if u.Dated {
					key = sessionKey(u.Session)
				}
				proven = append(proven, coverKey{key, d, u.StaffID, u.Reason, absenceRule(u.Absence)})
			}
		}
		proven = dedupCover(proven)
		oracle = dedupCover(oracle)
		found += len(oracle)
		if !slices.Equal(proven, oracle) {
			t.Fatalf("state %d (today %s, window %s..%s): proof and oracle disagree:\nproof:  %v\noracle: %v\nstate: %+v", valid, today, from, to, proven, oracle, s)
		}
	}
	if found == 0 {
		t.Fatal("no state left a session uncovered: the test proves nothing")
	}
	t.Logf("%d states, %d uncovered session-dates matched", valid, found)
}

func sessionKey(s Session) string {
	if s.IsOneOff() {
		return fmt.Sprintf("o/%d", s.OneOffID)
	}
	ref := s.Ref()
	return fmt.Sprintf("s/%s/%d/%d", ref.Date, ref.ClassTimeID, ref.ClassID)
}

func dedupCover(ks []coverKey) []coverKey {
	sortCoverKeys(ks)
	return slices.Compact(ks)
}

func sortAbsences(as []Absence) {
	sort.Slice(as, func(i, j int) bool { return fmt.Sprint(as[i]) < fmt.Sprint(as[j]) })
}

// TestNeedsCoverAcrossDST checks time off around daylight-saving changes:
// the rules are wall-clock, as sessions are, and on these dates the
// engine's answer is the one the instants (Date.At, Session.Instants) give.
func TestNeedsCoverAcrossDST(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	newYork, _ := time.LoadLocation("America/New_York")
	cases := []struct {
		name         string
		loc          *time.Location
		date         string
		start, end   string
		off          TimeOff
		want         bool
		skipInstants bool
	}{
		{name: "berlin spring forward: ends where the time off starts", loc: berlin, date: "2026-03-29", start: "01:30", end: "02:30",
			off: TimeOff{From: MustDate(2026, 3, 29), To: MustDate(2026, 3, 30), FromTime: MustTime("02:30")}, want: false},
		{name: "berlin spring forward: in the gap, time off from its middle", loc: berlin, date: "2026-03-29", start: "02:00", end: "03:00",
			off: TimeOff{From: MustDate(2026, 3, 29), To: MustDate(2026, 3, 29), FromTime: MustTime("02:30")}, want: true},
		{name: "berlin fall back: the repeated hour, time off until 02:30", loc: berlin, date: "2026-10-25", start: "02:00", end: "03:00",
			off: TimeOff{From: MustDate(2026, 10, 24), To: MustDate(2026, 10, 25), ToTime: MustTime("02:30")}, want: true},
		{name: "new york fall back: starts before the time off ends", loc: newYork, date: "2026-11-01", start: "01:00", end: "02:00",
			off: TimeOff{From: MustDate(2026, 10, 31), To: MustDate(2026, 11, 1), ToTime: MustTime("01:30")}, want: true},
		{name: "new york fall back: starts as the time off ends", loc: newYork, date: "2026-11-01", start: "01:30", end: "02:30",
			off: TimeOff{From: MustDate(2026, 10, 31), To: MustDate(2026, 11, 1), ToTime: MustTime("01:30")}, want: false},
		{name: "new york spring forward: a whole day away", loc: newYork, date: "2026-03-08", start: "02:30", end: "03:30",
			off: TimeOff{From: MustDate(2026, 3, 8), To: MustDate(2026, 3, 8)}, want: true},
		{name: "new york spring forward: the day after", loc: newYork, date: "2026-03-09", start: "02:30", end: "03:30",
			off: TimeOff{From: MustDate(2026, 3, 8), To: MustDate(2026, 3, 8)}, want: false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _ := ParseDate(c.date)
			s := State{Business: Business{Kind: Gym, Name: "DST", Currency: "EUR", Location: c.loc},
				Staff: []Staff{{ID: 1, Name: "Ana"}}}
			c.off.ID, c.off.StaffID = 1, 1
			s.TimeOffs = []TimeOff{c.off}
			tt, err := New(s)
			if err != nil {
				t.Fatal(err)
			}
			x := Session{Date: d, Start: MustTime(c.start), End: MustTime(c.end), StaffIDs: []int64{1}}
			got := len(tt.NeedsCover(&x)) > 0
			if got != c.want {
				t.Errorf("NeedsCover: got %v, want %v", got, c.want)
			}
			// The same question in instants.
			from, to := c.off.From.At(c.off.FromTime, c.loc), c.off.To.At(EndOfDay, c.loc)
			if c.off.ToTime != 0 {
				to = c.off.To.At(c.off.ToTime, c.loc)
			}
			start, end := x.Instants(c.loc)
			if inst := start.Before(to) && end.After(from); inst != c.want {
				t.Errorf("in instants (%s–%s against %s–%s): got %v, want %v", start, end, from, to, inst, c.want)
			}
		})
	}
}

// TestWorkingHoursFrom checks that hours hold from their date until the
// next set's, that touching spans join, and that hours without spans lift
// the limit.
func TestWorkingHoursFrom(t *testing.T) {
	s := State{Business: Business{Kind: Gym, Name: "Hours", Currency: "EUR", Location: time.UTC},
		Staff: []Staff{{ID: 1, Name: "Ana"}},
		Hours: []WorkingHours{
			{ID: 1, StaffID: 1, From: MustDate(2026, 1, 1), Spans: []HoursSpan{{time.Monday, MustTime("08:00"), MustTime("12:00")}, {time.Monday, MustTime("12:00"), MustTime("14:00")}}},
			{ID: 2, StaffID: 1, From: MustDate(2026, 3, 1), Spans: []HoursSpan{{time.Monday, MustTime("16:00"), MustTime("20:00")}}},
			{ID: 3, StaffID: 1, From: MustDate(2026, 6, 1)},
		}}
	tt, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		date       string
		start, end string
		want       string // "" or the From of the hours it is outside
	}{
		{"before any hours", "2025-12-29", "06:00", "07:00", ""},
		{"across two touching spans", "2026-01-05", "11:00", "13:00", ""},
		{"past the joined spans", "2026-01-05", "13:00", "15:00", "2026-01-01"},
		{"a day without hours", "2026-01-06", "09:00", "10:00", "2026-01-01"},
		{"the new contract", "2026-03-02", "11:00", "12:00", "2026-03-01"},
		{"within the new contract", "2026-03-02", "17:00", "18:00", ""},
		{"hours without spans lift the limit", "2026-06-02", "03:00", "04:00", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _ := ParseDate(c.date)
			got := ""
			for _, a := range tt.Available(1, d, MustTime(c.start), MustTime(c.end)) {
				got = a.HoursFrom.String()
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestNewUncoveredOnlyWhatAWriteAdds checks that a problem is known by its
// rule and sessions: one that was there stays allowed, one a write adds is
// new, and dates moving does not make an old one new.
func TestNewUncoveredOnlyWhatAWriteAdds(t *testing.T) {
	s := State{Business: Business{Kind: Gym, Name: "Cover", Currency: "EUR", Location: time.UTC},
		Rooms:      []Room{{ID: 1, Name: "Ring"}},
		Staff:      []Staff{{ID: 1, Name: "Ana"}, {ID: 2, Name: "Ben"}},
		Activities: []Activity{{ID: 1, Name: "Boxing"}},
		Classes:    []Class{{ID: 1, ActivityID: 1, StaffIDs: []int64{1}}, {ID: 2, ActivityID: 1, StaffIDs: []int64{2}}},
		ClassTimes: []ClassTime{{ID: 1, RoomID: 1, Weekday: time.Monday, Start: MustTime("18:00"), End: MustTime("19:00")},
			{ID: 2, RoomID: 1, Weekday: time.Tuesday, Start: MustTime("18:00"), End: MustTime("19:00")}},
		Series:   []Series{{ID: 1, Name: "Boxing", Anchor: MustDate(2026, 1, 4), Cycle: 2}},
		Entries:  []Entry{{ID: 1, SeriesID: 1, ClassTimeID: 1, ClassID: 1, Week: 1}},
		TimeOffs: []TimeOff{{ID: 1, StaffID: 1, From: MustDate(2026, 2, 1), To: MustDate(2026, 2, 28)}},
	}
	today := MustDate(2026, 1, 10)
	before, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	was := before.Uncovered(today)
	if len(was) != 1 || was[0].First != MustDate(2026, 2, 2) || was[0].Every != 2 || was[0].Until != MustDate(2026, 2, 16) {
		t.Fatalf("got %+v, want one problem from 2 Feb every 2 weeks until 16 Feb", was)
	}
	// Ana also gives Tuesdays: new.
	s2 := s.Clone()
	s2.Entries = append(s2.Entries, Entry{ID: 2, SeriesID: 1, ClassTimeID: 2, ClassID: 1, Week: 2})
	after, err := New(s2)
	if err != nil {
		t.Fatal(err)
	}
	added := NewUncovered(was, after.Uncovered(today))
	if len(added) != 1 || added[0].First != MustDate(2026, 2, 10) {
		t.Fatalf("got %+v, want the Tuesdays from 10 Feb", added)
	}
	// Ben gives Tuesdays: nothing new; a cancelled Monday: nothing new.
	s3 := s.Clone()
	s3.Entries = append(s3.Entries, Entry{ID: 2, SeriesID: 1, ClassTimeID: 2, ClassID: 2, Week: 2})
	s3.Changes = []DayChange{{Ref: SessionRef{Date: MustDate(2026, 2, 2), ClassTimeID: 1, ClassID: 1}, Cancelled: true}}
	after, err = New(s3)
	if err != nil {
		t.Fatal(err)
	}
	if added := NewUncovered(was, after.Uncovered(today)); len(added) != 0 {
		t.Fatalf("got %+v, want nothing new", added)
	}
}

func ExampleTimetable_Uncovered() {
	s := State{Business: Business{Kind: Gym, Name: "Harbor", Currency: "KD", Location: time.UTC},
		Rooms:      []Room{{ID: 1, Name: "Ring"}},
		Staff:      []Staff{{ID: 1, Name: "Marco Reyes"}},
		Activities: []Activity{{ID: 1, Name: "Boxing"}},
		Classes:    []Class{{ID: 1, ActivityID: 1, StaffIDs: []int64{1}}},
		ClassTimes: []ClassTime{{ID: 1, RoomID: 1, Weekday: time.Monday, Start: MustTime("18:00"), End: MustTime("19:00")}},
		Series:     []Series{{ID: 1, Name: "Fight Club", Anchor: MustDate(2026, 11, 29), Cycle: 2}},
		Entries:    []Entry{{ID: 1, SeriesID: 1, ClassTimeID: 1, ClassID: 1, Week: 1}},
		TimeOffs:   []TimeOff{{ID: 1, StaffID: 1, From: MustDate(2026, 12, 20), To: MustDate(2027, 1, 31)}},
	}
	tt, err := New(s)
	if err != nil {
		panic(err)
	}
	today := MustDate(2026, 12, 1)
	for _, u := range tt.Uncovered(today) {
		fmt.Println(u.First, "every", u.Every, "weeks until", u.Until)
		fmt.Println(tt.Message(&u, today))
	}
	// Output:
	// 2026-12-28 every 2 weeks until 2027-01-25
	// Coach Marco Reyes is away (time off 20 Dec – 31 Jan 2027) for Boxing (Ring, 6 PM – 7 PM, Fight Club W1), first 28 Dec
}

// TestCoverOptionsAreExact compares CoverOptions, on generated businesses
// with time off, hours and qualifications, with what a write would decide:
// for every series session from the week of today on that is in no clash
// itself, and every person not in it, the cover of its first staff member
// by that person is an option exactly when the state with that day change
// is valid, qualified, and adds no clash and no session needing cover.
func TestCoverOptionsAreExact(t *testing.T) {
	const want = 300
	r := rand.New(rand.NewPCG(35, 31))
	valid, options, excluded := 0, 0, 0
	for tries := 0; valid < want; tries++ {
		if tries > 10*want {
			t.Fatalf("only %d of %d generated states were valid", valid, tries)
		}
		s, today, from, to := randomState(r)
		addCoverRules(r, &s, from, to)
		for i := 1; i <= r.IntN(4); i++ {
			s.Qualifications = append(s.Qualifications, Qualification{ID: int64(i), StaffID: s.Staff[r.IntN(len(s.Staff))].ID,
				ActivityID: s.Activities[r.IntN(len(s.Activities))].ID})
		}
		if Validate(s) != nil {
			continue
		}
		valid++
		tt, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		clashes, uncovered := tt.Clashes(today), tt.Uncovered(today)
		for n := 0; n < 8; n++ {
			d := today.WeekStart(s.Business.WeekStart) + Date(r.IntN(int(to-today)))
			day := tt.Day(d)
			inClash := map[int]bool{}
			dayClashes(tt, d, day, tt.bookings[d], func() bool { return false }, func(_ ClashKind, _, _ string, members []int) {
				for _, m := range members {
					inClash[m] = true
				}
			})
			for i := range day {
				x := &day[i]
				if x.Cancelled || x.IsOneOff() || inClash[i] {
					continue
				}
				opts, excl := tt.CoverOptions(x)
				got := map[int64]bool{}
				for _, o := range opts {
					got[o.StaffID] = true
				}
				if len(opts)+len(excl) == 0 && len(tt.personKeys(x.StaffIDs)) < len(tt.personKeys(staffIDs(s.Staff))) {
					t.Fatalf("state %d: %s has neither options nor exclusions", valid, x.Key())
				}
				options += len(opts)
				excluded += len(excl)
				in := tt.personKeys(x.StaffIDs)
				for _, p := range s.Staff {
					k := NameKey(p.Name)
					if slices.Contains(in, k) {
						continue
					}
					could := tt.Qualified(p.ID, tt.classes[x.ClassID].ActivityID) && coverWrite(t, tt, s, x, p.ID, today, clashes, uncovered)
					if could != got[p.ID] {
						t.Fatalf("state %d (today %s), %s: %s (%d) could take it: %v, an option: %v\noptions %+v\nexcluded %+v",
							valid, today, x.Key(), p.Name, p.ID, could, got[p.ID], opts, excl)
					}
				}
			}
		}
	}
	if options == 0 || excluded == 0 {
		t.Fatalf("%d options and %d exclusions: the test proves little", options, excluded)
	}
	t.Logf("%d states, %d options and %d exclusions matched", valid, options, excluded)
}

func staffIDs(ps []Staff) []int64 {
	out := make([]int64, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

// coverWrite is the write's verdict on p covering the first staff member
// of x: valid, no new clash, no new session needing cover.
func coverWrite(t *testing.T, tt *Timetable, s State, x *Session, p int64, today Date, clashes Report, uncovered []Uncovered) bool {
	t.Helper()
	staff := slices.Clone(x.StaffIDs)
	staff[0] = p
	c, keep, err := tt.MergeChange(x.Ref(), ChangePatch{StaffIDs: staff})
	if err != nil {
		t.Fatal(err)
	}
	s = s.Clone()
	s.Changes = slices.DeleteFunc(s.Changes, func(o DayChange) bool { return o.Ref == x.Ref() })
	if keep {
		s.Changes = append(s.Changes, c)
	}
	after, err := New(s)
	if err != nil {
		return false
	}
	return len(NewClashes(clashes, after.Clashes(today))) == 0 && len(NewUncovered(uncovered, after.Uncovered(today))) == 0
}

// TestCoverPlanNeverDoubleBooks applies the cover plan of a time off, on
// generated businesses without clashes, as the day changes assignCover
// writes: the plan adds no clash (no substitute is in two places) and no
// session needing cover, and every session the time off leaves uncovered
// from today on is planned or left open.
func TestCoverPlanNeverDoubleBooks(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 4))
	plans, assigned := 0, 0
	for tries := 0; plans < 150 && tries < 20000; tries++ {
		s, today, from, to := randomState(r)
		addCoverRules(r, &s, from, to)
		if len(s.TimeOffs) == 0 || Validate(s) != nil {
			continue
		}
		tt, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		clashes := tt.Clashes(today)
		if len(clashes.Clashes) > 0 {
			continue
		}
		off := s.TimeOffs[0]
		plan, open := tt.CoverPlan(off.ID, today, MaxDate)
		if len(plan)+len(open) == 0 {
			continue
		}
		plans++
		assigned += len(plan)
		after := s.Clone()
		for _, a := range plan {
			if a.Session.Date < today || a.StaffID == a.Replaces {
				t.Fatalf("plan %d: %+v", plans, a)
			}
			staff := slices.Clone(a.Session.StaffIDs)
			// An earlier assignment of the plan may have changed it.
			for _, c := range after.Changes {
				if c.Ref == a.Session.Ref() && c.StaffIDs != nil {
					staff = slices.Clone(c.StaffIDs)
				}
			}
			i := slices.Index(staff, a.Replaces)
			if i < 0 {
				t.Fatalf("plan %d: %s does not have %d to replace", plans, a.Session.Key(), a.Replaces)
			}
			staff[i] = a.StaffID
			cur, err := New(after)
			if err != nil {
				t.Fatal(err)
			}
			c, keep, err := cur.MergeChange(a.Session.Ref(), ChangePatch{StaffIDs: staff})
			if err != nil {
				t.Fatal(err)
			}
			after.Changes = slices.DeleteFunc(after.Changes, func(o DayChange) bool { return o.Ref == a.Session.Ref() })
			if keep {
				after.Changes = append(after.Changes, c)
			}
		}
		done, err := New(after)
		if err != nil {
			t.Fatalf("plan %d: %v", plans, err)
		}
		if added := NewClashes(clashes, done.Clashes(today)); len(added) > 0 {
			t.Fatalf("plan %d (today %s) adds a clash: %s\nplan %+v", plans, today, added[0].Message, plan)
		}
		if added := NewUncovered(tt.Uncovered(today), done.Uncovered(today)); len(added) > 0 {
			t.Fatalf("plan %d adds a session needing cover: %+v", plans, added[0])
		}
		for _, u := range done.Uncovered(today) {
			if u.Reason == OnTimeOff && u.TimeOffID == off.ID && len(u.Dates(today, u.Until)) > 0 {
				d := u.Dates(today, u.Until)[0]
				left := slices.ContainsFunc(open, func(x Session) bool { return x.Date == d })
				if !left {
					t.Fatalf("plan %d: the time off still leaves %+v uncovered on %s, neither planned nor open", plans, u, d)
				}
			}
		}
	}
	if assigned == 0 {
		t.Fatal("no plan assigned anyone: the test proves nothing")
	}
	t.Logf("%d plans, %d assignments", plans, assigned)
}
