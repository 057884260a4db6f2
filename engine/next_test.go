package engine_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	. "github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
)

// TestNextEqualsNew applies thousands of random edits, hostile ones among
// them, to synthetic businesses and requires Timetable.Next, carried from
// revision to revision, to return exactly what New returns: the same
// error, or a timetable equal to New's in every part it compiles and in
// the days and room use it answers.
func TestNextEqualsNew(t *testing.T) {
	businesses, edits := 6, 500
	if testing.Short() {
		businesses, edits = 2, 200
	}
	r := rand.New(rand.NewPCG(21, 22))
	valid, invalid, whole := 0, 0, 0
	for b := range businesses {
		today := MustDate(2026, 11, 29).AddDays(r.IntN(60))
		s := enginetest.Business(enginetest.Options{ClassTimes: 40 + r.IntN(200), Seed: uint64(b), Today: today, Clashes: r.IntN(3)})
		tt, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		var log []string
		for i := range edits {
			next := tt.State().Clone()
			var did string
			if r.IntN(4) == 0 {
				did = hostileEdit(r, &next)
			} else {
				did = enginetest.RandomEdit(r, &next, today)
			}
			if r.IntN(3) == 0 {
				next.Canonical() // as a write saves it
			}
			log = append(log, did)
			got, gerr := tt.Next(next)
			want, werr := New(next)
			if !reflect.DeepEqual(gerr, werr) {
				t.Fatalf("business %d, edit %d (%s): Next says %v, New says %v\nedits: %v", b, i, did, gerr, werr, log)
			}
			if vErr := tt.ValidateNext(next); !reflect.DeepEqual(vErr, werr) {
				t.Fatalf("business %d, edit %d (%s): ValidateNext says %v, New says %v", b, i, did, vErr, werr)
			}
			if _, cErr := tt.Check(next); !reflect.DeepEqual(cErr, werr) {
				t.Fatalf("business %d, edit %d (%s): Check says %v, New says %v", b, i, did, cErr, werr)
			}
			if werr != nil {
				invalid++
				continue
			}
			// The step a write takes: checked with the new rows under
			// temporary ids and out of order, then saved under real ids
			// in canonical order.
			checked, saved := withTemporaryIDs(tt.State(), next, r)
			st, err := tt.Check(checked)
			if err != nil {
				t.Fatalf("business %d, edit %d (%s): Check of the rows under temporary ids: %v", b, i, did, err)
			}
			saved.Canonical()
			st.Saved(saved.State, func(id int64) int64 {
				if v, ok := saved.real[id]; ok {
					return v
				}
				return id
			})
			fromStep, err := st.Timetable()
			if err != nil {
				t.Fatalf("business %d, edit %d (%s): Step.Timetable: %v", b, i, did, err)
			}
			wantSaved, err := New(saved.State)
			if err != nil {
				t.Fatal(err)
			}
			if msg := sameTimetable(fromStep, wantSaved, today); msg != "" {
				t.Fatalf("business %d, edit %d (%s): the step's timetable: %s\nedits: %v", b, i, did, msg, log)
			}
			gf, gt, gopen := st.ChangedRange(today)
			wf, wt, wopen := ChangedRange(tt.State(), saved.State, today)
			if gf != wf || gt != wt || gopen != wopen {
				t.Fatalf("business %d, edit %d (%s): the step's changed range %v–%v %v, ChangedRange says %v–%v %v",
					b, i, did, gf, gt, gopen, wf, wt, wopen)
			}
			valid++
			if !FollowsChange(tt.State(), next) {
				whole++
			}
			if msg := sameTimetable(got, want, today); msg != "" {
				t.Fatalf("business %d, edit %d (%s): %s\nedits: %v", b, i, did, msg, log)
			}
			tt = got // carry on from what Next built
		}
	}
	t.Logf("%d valid edits (%d compiled whole), %d invalid", valid, whole, invalid)
	if n := businesses * edits; valid < n/4 || invalid < n/20 {
		t.Fatalf("too few of a kind: %d valid, %d invalid", valid, invalid)
	}
}

// sameTimetable compares two timetables part by part, and by the days and
// room use they answer, and says how they differ.
func sameTimetable(got, want *Timetable, today Date) string {
	from, to := today.AddDays(-14), today.AddDays(120)
	if g, w := got.Days(from, to), want.Days(from, to); !reflect.DeepEqual(g, w) {
		return fmt.Sprintf("days differ:\n got %v\nwant %v", g, w)
	}
	loc := want.State().Business.Location
	for _, room := range want.State().Rooms[:min(3, len(want.State().Rooms))] {
		gl, gu := got.RoomUsage(room.ID, from.At(0, loc), to.At(0, loc), loc)
		wl, wu := want.RoomUsage(room.ID, from.At(0, loc), to.At(0, loc), loc)
		if !reflect.DeepEqual(gl, wl) || !reflect.DeepEqual(gu, wu) {
			return fmt.Sprintf("room %d's use differs", room.ID)
		}
	}
	if msg := SameCompiled(got, want); msg != "" {
		return msg
	}
	return ""
}

// hostileEdit breaks a rule the way a careless write could: an id taken
// twice or zero, a row named while removed, a slot or a session taken
// twice, a name or a class that exists already, a value out of range.
func hostileEdit(r *rand.Rand, s *State) string {
	switch r.IntN(14) {
	case 0:
		ct := s.ClassTimes[r.IntN(len(s.ClassTimes))]
		s.ClassTimes = append(s.ClassTimes, ct)
		return "a class time twice"
	case 1:
		e := s.Entries[r.IntN(len(s.Entries))]
		e.Week = 1
		s.Entries = append(s.Entries, e)
		return "an entry's id twice"
	case 2:
		e := s.Entries[r.IntN(len(s.Entries))]
		e.ID = 1 << 40
		s.Entries = append(s.Entries, e)
		return "an entry's slot twice"
	case 3:
		e := s.Entries[r.IntN(len(s.Entries))]
		i := slices.IndexFunc(s.ClassTimes, func(ct ClassTime) bool { return ct.ID == e.ClassTimeID })
		s.ClassTimes = slices.Delete(s.ClassTimes, i, i+1)
		return "a class time removed under its entries"
	case 4:
		if len(s.Changes) == 0 {
			return "nothing"
		}
		c := s.Changes[r.IntN(len(s.Changes))]
		c.Note = "again"
		s.Changes = append(s.Changes, c)
		return "a session changed twice"
	case 5:
		s.Staff = append(s.Staff, Staff{ID: s.Staff[r.IntN(len(s.Staff))].ID, Name: "Twin"})
		return "a staff id twice"
	case 6:
		s.Activities = append(s.Activities, Activity{ID: 1 << 40, Name: " " + s.Activities[0].Name})
		return "an activity's name twice"
	case 7:
		c := s.Classes[r.IntN(len(s.Classes))]
		c.ID = 1 << 40
		s.Classes = append(s.Classes, c)
		return "a class twice"
	case 8:
		s.ClassTimes = append(s.ClassTimes, ClassTime{ID: 0, RoomID: s.Rooms[0].ID, Start: 600, End: 660})
		return "a class time without an id"
	case 9:
		ct := &s.ClassTimes[r.IntN(len(s.ClassTimes))]
		ct.End = ct.Start - 1
		return "a class time ending before it starts"
	case 10:
		e := &s.Entries[r.IntN(len(s.Entries))]
		e.Week = 60
		return "an entry outside its rotation"
	case 11:
		if len(s.OneOffs) == 0 {
			return "nothing"
		}
		o := s.OneOffs[r.IntN(len(s.OneOffs))]
		o.ClientIDs = []int64{-5}
		s.OneOffs = append(s.OneOffs, o)
		return "a one-off twice, naming no client"
	case 12:
		c := &s.Classes[r.IntN(len(s.Classes))]
		c.StaffIDs = append(c.StaffIDs, 1<<40)
		return "a class naming no one"
	default:
		s.RoomBookings = append(s.RoomBookings, RoomBooking{ID: 1 << 41, RoomID: s.Rooms[0].ID, Date: MustDate(2026, 12, 1), Start: 600, End: 540})
		return "a booking ending before it starts"
	}
}

// savedState is a state as a write saves it, and the real id of each
// temporary one.
type savedState struct {
	State
	real map[int64]int64
}

// withTemporaryIDs returns next as a write's edit holds it — the rows new
// since before under temporary (negative) ids, wherever they are named,
// and the lists they are in out of order — and next as the write saves it.
func withTemporaryIDs(before, next State, r *rand.Rand) (State, savedState) {
	checked := next.Clone()
	temp := map[int64]int64{} // real to temporary
	real := map[int64]int64{}
	n := int64(0)
	newRows := func(ids []int64, had func(int64) bool) {
		for _, id := range ids {
			if !had(id) && id > 0 {
				n--
				temp[id], real[n] = n, id
			}
		}
	}
	has := func(ids []int64) func(int64) bool {
		set := map[int64]bool{}
		for _, id := range ids {
			set[id] = true
		}
		return func(id int64) bool { return set[id] }
	}
	collect := func(before, after []int64) { newRows(after, has(before)) }
	collect(idsOf(before.Staff, func(x *Staff) int64 { return x.ID }), idsOf(next.Staff, func(x *Staff) int64 { return x.ID }))
	collect(idsOf(before.Activities, func(x *Activity) int64 { return x.ID }), idsOf(next.Activities, func(x *Activity) int64 { return x.ID }))
	collect(idsOf(before.Classes, func(x *Class) int64 { return x.ID }), idsOf(next.Classes, func(x *Class) int64 { return x.ID }))
	collect(idsOf(before.ClassTimes, func(x *ClassTime) int64 { return x.ID }), idsOf(next.ClassTimes, func(x *ClassTime) int64 { return x.ID }))
	collect(idsOf(before.Entries, func(x *Entry) int64 { return x.ID }), idsOf(next.Entries, func(x *Entry) int64 { return x.ID }))
	collect(idsOf(before.OneOffs, func(x *OneOff) int64 { return x.ID }), idsOf(next.OneOffs, func(x *OneOff) int64 { return x.ID }))
	collect(idsOf(before.RoomBookings, func(x *RoomBooking) int64 { return x.ID }), idsOf(next.RoomBookings, func(x *RoomBooking) int64 { return x.ID }))
	to := func(id int64) int64 {
		if v, ok := temp[id]; ok {
			return v
		}
		return id
	}
	list := func(l []int64) {
		for i := range l {
			l[i] = to(l[i])
		}
	}
	for i := range checked.Staff {
		checked.Staff[i].ID = to(checked.Staff[i].ID)
	}
	for i := range checked.Activities {
		checked.Activities[i].ID = to(checked.Activities[i].ID)
	}
	for i := range checked.Classes {
		c := &checked.Classes[i]
		c.ID, c.ActivityID = to(c.ID), to(c.ActivityID)
		c.StaffIDs = slices.Clone(c.StaffIDs)
		list(c.StaffIDs)
	}
	for i := range checked.ClassTimes {
		checked.ClassTimes[i].ID = to(checked.ClassTimes[i].ID)
	}
	for i := range checked.Entries {
		e := &checked.Entries[i]
		e.ID, e.ClassTimeID, e.ClassID = to(e.ID), to(e.ClassTimeID), to(e.ClassID)
	}
	for i := range checked.OneOffs {
		o := &checked.OneOffs[i]
		o.ID, o.ClassID = to(o.ID), to(o.ClassID)
	}
	for i := range checked.RoomBookings {
		checked.RoomBookings[i].ID = to(checked.RoomBookings[i].ID)
	}
	for i := range checked.Changes {
		c := &checked.Changes[i]
		c.Ref.ClassTimeID, c.Ref.ClassID, c.ClassID = to(c.Ref.ClassTimeID), to(c.Ref.ClassID), to(c.ClassID)
		c.StaffIDs = slices.Clone(c.StaffIDs)
		list(c.StaffIDs)
	}
	// Out of order, as an edit appends and moves rows.
	shuffle := func(n int, swap func(i, j int)) {
		if n > 1 && r.IntN(2) == 0 {
			swap(r.IntN(n), r.IntN(n))
		}
	}
	shuffle(len(checked.Entries), func(i, j int) { checked.Entries[i], checked.Entries[j] = checked.Entries[j], checked.Entries[i] })
	shuffle(len(checked.Changes), func(i, j int) { checked.Changes[i], checked.Changes[j] = checked.Changes[j], checked.Changes[i] })
	shuffle(len(checked.ClassTimes), func(i, j int) {
		checked.ClassTimes[i], checked.ClassTimes[j] = checked.ClassTimes[j], checked.ClassTimes[i]
	})
	shuffle(len(checked.OneOffs), func(i, j int) { checked.OneOffs[i], checked.OneOffs[j] = checked.OneOffs[j], checked.OneOffs[i] })
	return checked, savedState{State: next.Clone(), real: real}
}

func idsOf[T any](rows []T, id func(*T) int64) []int64 {
	out := make([]int64, len(rows))
	for i := range rows {
		out[i] = id(&rows[i])
	}
	return out
}
