package reference_test

// The reference system's own exports of its three demos, and its own
// resolution of the twelve weeks after them (testdata/reference, made by the
// reference system with its clock at Sunday 2026-12-06 in UTC): importing
// each must give the same real sessions on every date.

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/reference"
	"github.com/koredyne/schedule/engine/reference/referencetest"
)

// describe is a date as our engine computes it from an import, in the
// terms of the reference's resolution.
func describe(tt *engine.Timetable, imp *reference.Import, x engine.Date) []string {
	pkgName := func(series int64) string {
		pkg := imp.Packages[series]
		for _, s := range imp.State.Series {
			if s.ID == pkg {
				return s.Name
			}
		}
		return "?"
	}
	var out []referencetest.Session
	for _, s := range tt.Day(x) {
		room, _ := tt.Room(s.RoomID)
		class, _ := tt.Class(s.ClassID)
		act, _ := tt.Activity(class.ActivityID)
		var staff []string
		for _, id := range s.StaffIDs {
			p, _ := tt.StaffMember(id)
			staff = append(staff, p.Name)
		}
		rs := referencetest.Session{Date: s.Date.String(), Start: s.Start.String(), End: s.End.String(), Room: room.Name,
			Activity: act.Name, Staff: strings.Join(staff, ", "), Cancelled: s.Cancelled}
		if !s.IsOneOff() && s.Ref().Date != s.Date {
			rs.From = s.Ref().Date.String()
		}
		for _, sw := range s.Series {
			rs.Packages = append(rs.Packages, pkgName(sw.SeriesID))
		}
		out = append(out, rs)
	}
	return referencetest.Canonical(out)
}

func TestRealExportsMatchTheReference(t *testing.T) {
	utc := reference.Options{Location: time.UTC, WeekStart: time.Sunday}
	for _, c := range []struct {
		demo                            string
		kind                            engine.Kind
		name                            string
		sessions, shared, cancelled, in int
	}{
		{"gym", engine.Gym, "Harbor Combat Club", 1309, 1308, 1, 1},
		{"clinic", engine.Clinic, "Cedar Physio Clinic", 392, 0, 1, 2},
		{"office", engine.Office, "Northgate Business Centre", 153, 0, 1, 2},
	} {
		t.Run(c.demo, func(t *testing.T) {
			b := fixture(t, "testdata/reference/export-"+c.demo+".json")
			imp, err := reference.Read(bytes.NewReader(b), utc)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			biz := imp.State.Business
			if biz.Kind != c.kind || biz.Name != c.name || biz.Currency != "KD" || biz.Location != time.UTC || imp.ExportedAt != "2026-12-06T12:00:00.000Z" {
				t.Errorf("business: got %+v exported at %q", biz, imp.ExportedAt)
			}
			if len(imp.Notes) != 0 {
				t.Errorf("notes: got %v, want none", imp.Notes)
			}
			tt, err := engine.New(imp.State)
			if err != nil {
				t.Fatal(err)
			}
			want, err := referencetest.Read(fixture(t, "testdata/reference/sessions-"+c.demo+".json"))
			if err != nil {
				t.Fatal(err)
			}
			from, to := day(want.From), day(want.To)
			var n, shared, cancelled, oneOffs int
			for x := from; x <= to; x++ {
				got := describe(tt, imp, x)
				if !slices.Equal(got, want.Days[x.String()]) {
					t.Errorf("%s (%s):\ngot\n\t%s\nwant\n\t%s", x, x.Weekday(), strings.Join(got, "\n\t"), strings.Join(want.Days[x.String()], "\n\t"))
				}
				for _, s := range tt.Day(x) {
					n++
					if len(s.Series) > 1 {
						shared++
					}
					if s.Cancelled {
						cancelled++
					}
					if s.IsOneOff() {
						oneOffs++
					}
				}
			}
			t.Logf("%s: %d dates, %d sessions (%d shared by several packages, %d cancelled, %d one-offs)", c.demo, to-from+1, n, shared, cancelled, oneOffs)
			if to-from+1 != 84 || n != c.sessions || shared != c.shared || cancelled != c.cancelled || oneOffs != c.in {
				t.Errorf("the comparison covered too little: %d sessions, %d shared, %d cancelled, %d one-offs", n, shared, cancelled, oneOffs)
			}
			// The reference's demos are free of double bookings; so is the import.
			r, err := engine.Clashes(imp.State, from)
			if err != nil {
				t.Fatal(err)
			}
			for _, cl := range r.Clashes {
				t.Errorf("clash: %s", cl.Message)
			}
		})
	}
}

// TestTwinClassesMatchTheReference imports the reference's gym export as an
// older version of the reference could hold it: every class of the All
// Access package a twin of its own (same activity, same coach), in the same
// slots as the class it repeats, so that the reference shows two sessions,
// the same coach twice in one room at one time, wherever the two run.
// testdata/reference/sessions-gym-twins*.json is the reference's own
// resolution of those exports (its resolveDate, run on them). Where every
// session change does the same to both twins, each twin becomes the class
// it repeats: one session belongs to both packages and has the places of
// both. Where a change cancels one twin's session only (the export's own
// change 1), that twin stays a class of its own under an activity of its
// own, two sessions there as in the reference, and their double booking
// comes along as a clash. Nothing is refused; every date matches.
func TestTwinClassesMatchTheReference(t *testing.T) {
	utc := reference.Options{Location: time.UTC, WeekStart: time.Sunday}
	same := map[int64]int64{}
	for c := int64(1); c <= 13; c++ {
		same[100+c] = c
	}
	apart := maps.Clone(same)
	delete(apart, 102)
	for _, c := range []struct {
		export string
		twins  referencetest.Twins
		merged int // twins made one with the class they repeat
		clash  bool
	}{
		{"gym-twins", referencetest.Twins{Same: same}, 13, false},
		{"gym-twins-apart", referencetest.Twins{Same: apart, Apart: map[int64]string{102: "Muay Thai (class 102)"}}, 12, true},
	} {
		t.Run(c.export, func(t *testing.T) {
			b := fixture(t, "testdata/reference/export-"+c.export+".json")
			imp, err := reference.Read(bytes.NewReader(b), utc)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			merged, kept := 0, 0
			for _, n := range imp.Notes {
				switch {
				case strings.Contains(n.Message, "which is one session: class 1"):
					merged++
				case strings.Contains(n.Message, "is imported under an activity of its own"):
					kept++
					if !strings.Contains(n.Message, `"Muay Thai (class 102)"`) || !strings.Contains(n.Message, "session change 1 changes class 2's session in slot 38 and nothing changes class 102's") {
						t.Errorf("the note of the twin kept apart: %s", n)
					}
				default:
					t.Errorf("note: %s", n)
				}
			}
			if merged != c.merged || kept != 13-c.merged {
				t.Errorf("%d twins merged and %d kept apart, want %d and %d; notes %v", merged, kept, c.merged, 13-c.merged, imp.Notes)
			}
			tt, err := engine.New(imp.State)
			if err != nil {
				t.Fatal(err)
			}
			want, err := referencetest.ReadAs(fixture(t, "testdata/reference/sessions-"+c.export+".json"), c.twins)
			if err != nil {
				t.Fatal(err)
			}
			from, to := day(want.From), day(want.To)
			var n, shared int
			for x := from; x <= to; x++ {
				if got := describe(tt, imp, x); !slices.Equal(got, want.Days[x.String()]) {
					t.Errorf("%s (%s):\ngot\n\t%s\nwant\n\t%s", x, x.Weekday(), strings.Join(got, "\n\t"), strings.Join(want.Days[x.String()], "\n\t"))
				}
				for _, s := range tt.Day(x) {
					n++
					if len(s.Series) > 1 {
						shared++
					}
				}
			}
			t.Logf("%s: %d dates, %d sessions (%d shared by several packages)", c.export, to-from+1, n, shared)
			if to-from+1 != 84 || shared < 1200 {
				t.Errorf("the comparison covered too little: %d sessions, %d shared", n, shared)
			}

			// A merged twin's slot gives its one session the places of both;
			// the slots of the twin kept apart give each of its two
			// sessions theirs, as the reference does.
			for _, ct := range imp.State.ClassTimes {
				merged := slices.ContainsFunc(imp.State.Entries, func(e engine.Entry) bool {
					return e.ClassTimeID == ct.ID && e.SeriesID == 16 && e.ClassID < 100
				})
				wantPlaces := 20
				if merged {
					wantPlaces = 40
				}
				if ct.Capacity != wantPlaces {
					t.Errorf("slot %d gives %d places, want %d", ct.ID, ct.Capacity, wantPlaces)
				}
			}
			r, err := engine.Clashes(imp.State, from)
			if err != nil {
				t.Fatal(err)
			}
			for _, cl := range r.Clashes {
				if !c.clash || !strings.Contains(cl.Message, "Muay Thai (class 102)") {
					t.Errorf("clash: %s", cl.Message)
				}
			}
			if c.clash && len(r.Clashes) == 0 {
				t.Error("the twins kept apart, two sessions in one room at one time, do not clash")
			}
		})
	}
}
