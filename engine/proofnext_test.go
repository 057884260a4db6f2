package engine_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
)

// TestProofNextEqualsFull applies thousands of random edits to small
// synthetic businesses, each valid edit a new revision, and requires the
// proof carried from the revision before (Proof.Next) to equal, clash for
// clash, the proof that resolves whole days from scratch.
func TestProofNextEqualsFull(t *testing.T) {
	businesses, edits := 10, 300
	if testing.Short() {
		businesses = 3
	}
	r := rand.New(rand.NewPCG(11, 12))
	applied, clashes := 0, 0
	for b := range businesses {
		today := engine.MustDate(2026, 11, 29).AddDays(r.IntN(60))
		s := enginetest.Business(enginetest.Options{ClassTimes: 15 + r.IntN(30), Seed: uint64(b), Today: today, Clashes: r.IntN(3)})
		// Two staff rows with one name, in other case, are one person.
		if len(s.Staff) > 3 {
			s.Staff[3].Name = strings.ToUpper(s.Staff[0].Name)
		}
		if engine.Validate(s) != nil {
			s.Staff[3].Name = "Someone else"
		}
		tt, err := engine.New(s)
		if err != nil {
			t.Fatal(err)
		}
		proof, err := tt.Prove(today, nil)
		if err != nil {
			t.Fatal(err)
		}
		var log []string
		for range edits {
			next := s.Clone()
			did := enginetest.RandomEdit(r, &next, today)
			day := today
			if r.IntN(50) == 0 {
				day = today.AddDays(1 + r.IntN(7))
			}
			if engine.Validate(next) != nil {
				continue
			}
			applied++
			log = append(log, did)
			nt, err := engine.New(next)
			if err != nil {
				t.Fatal(err)
			}
			got, err := proof.Next(nt, day, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := engine.ClashesByDays(nt, day)
			clashes += len(want.Clashes)
			if !reflect.DeepEqual(got.Report(), want) {
				t.Fatalf("business %d, edit %d (%s):\n got %s\nwant %s\nedits before: %s", b, len(log), did,
					messages(got.Report()), messages(want), strings.Join(log[max(0, len(log)-10):], "\n  "))
			}
			// The same write as a step from the timetable before, its
			// difference carried from the check to the proof.
			st, err := tt.Check(next)
			if err != nil {
				t.Fatal(err)
			}
			stepped, err := proof.Step(st, day, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(stepped.Report(), want) {
				t.Fatalf("business %d, edit %d (%s), as a step:\n got %s\nwant %s\nedits before: %s", b, len(log), did,
					messages(stepped.Report()), messages(want), strings.Join(log[max(0, len(log)-10):], "\n  "))
			}
			s, today, proof, tt = next, day, got, nt
			if r.IntN(2) == 0 {
				proof = stepped
				tt, _ = st.Timetable()
			}
		}
	}
	if applied < businesses*edits/2 {
		t.Fatalf("only %d edits were valid", applied)
	}
	t.Logf("%d edits, %d clashes compared", applied, clashes)
}

func messages(r engine.Report) string {
	var b strings.Builder
	for _, c := range r.Clashes {
		b.WriteString("\n  " + c.Message)
	}
	return b.String()
}

// TestProofNextClosureOfARoomMovedInto closes the room a day change moved
// a session into: the person the change put there no longer clashes, though
// nothing of theirs is in that room by rule. Next must prove that person
// again, and again when the closure goes.
func TestProofNextClosureOfARoomMovedInto(t *testing.T) {
	monday := engine.MustDate(2026, 11, 30)
	s := engine.State{
		Business:   engine.Business{Kind: engine.Gym, Name: "Moves", Currency: "KD", Location: time.UTC, WeekStart: time.Monday},
		Rooms:      []engine.Room{{ID: 1, Name: "A"}, {ID: 2, Name: "B"}, {ID: 3, Name: "C"}},
		Staff:      []engine.Staff{{ID: 1, Name: "Pia"}, {ID: 2, Name: "Quin"}},
		Activities: []engine.Activity{{ID: 1, Name: "Yoga"}},
		Classes:    []engine.Class{{ID: 1, ActivityID: 1, StaffIDs: []int64{1}}, {ID: 2, ActivityID: 1, StaffIDs: []int64{2}}},
		ClassTimes: []engine.ClassTime{
			{ID: 1, RoomID: 1, Weekday: time.Monday, Start: engine.MustTime("10:00"), End: engine.MustTime("11:00")},
			{ID: 2, RoomID: 3, Weekday: time.Monday, Start: engine.MustTime("10:00"), End: engine.MustTime("11:00")},
		},
		Series:  []engine.Series{{ID: 1, Name: "Weekly", Anchor: monday.AddDays(-14), Cycle: 1}},
		Entries: []engine.Entry{{ID: 1, SeriesID: 1, ClassTimeID: 1, ClassID: 1, Week: 1}, {ID: 2, SeriesID: 1, ClassTimeID: 2, ClassID: 2, Week: 1}},
		Changes: []engine.DayChange{{Ref: engine.SessionRef{Date: monday.AddDays(7), ClassTimeID: 2, ClassID: 2}, RoomID: 2, StaffIDs: []int64{1}}},
	}
	closed := s.Clone()
	closed.Closures = []engine.Closure{{ID: 1, From: monday.AddDays(7), To: monday.AddDays(7), RoomIDs: []int64{2}, Reason: "leak"}}
	var proof *engine.Proof
	for i, st := range []engine.State{s, closed, s} {
		tt, err := engine.New(st)
		if err != nil {
			t.Fatal(err)
		}
		if proof, err = proof.Next(tt, monday, nil); err != nil {
			t.Fatal(err)
		}
		want := engine.ClashesByDays(tt, monday)
		if len(want.Clashes) != []int{1, 0, 1}[i] {
			t.Fatalf("revision %d: the oracle found %d clashes:%s", i, len(want.Clashes), messages(want))
		}
		if !reflect.DeepEqual(proof.Report(), want) {
			t.Fatalf("revision %d:\n got %s\nwant %s", i, messages(proof.Report()), messages(want))
		}
	}
}

// TestProofOnSyntheticBusinesses compares the proof with the one that
// resolves whole days on synthetic businesses of up to a few hundred class
// times, with planted clashes and random edits on top (which add clashes
// freely: class times at any hour in any room, covers, moves, closures that
// pause rotations): first the proof from scratch, then each edit's proof
// carried from the one before. Some businesses live in zones with
// daylight saving, and some have room and staff ids far apart, as an
// imported business may, so the proof looks them up by map rather than by
// slice.
func TestProofOnSyntheticBusinesses(t *testing.T) {
	businesses, edits := 24, 40
	if testing.Short() {
		businesses = 6
	}
	zones := []string{"UTC", "Europe/Berlin", "America/New_York"}
	r := rand.New(rand.NewPCG(21, 22))
	clashes := 0
	for b := range businesses {
		today := engine.MustDate(2026, 3, 1).AddDays(r.IntN(300))
		planted := 1 + r.IntN(6)
		s := enginetest.Business(enginetest.Options{ClassTimes: 20 + r.IntN(300), Seed: uint64(100 + b), Today: today, Clashes: planted})
		loc, err := time.LoadLocation(zones[b%len(zones)])
		if err != nil {
			t.Fatal(err)
		}
		s.Business.Location = loc
		if b%3 == 2 {
			shiftIDs(&s, 1<<40)
		}
		tt, err := engine.New(s)
		if err != nil {
			t.Fatal(err)
		}
		proof, err := tt.Prove(today, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := engine.ClashesByDays(tt, today)
		if len(want.Clashes) != planted {
			t.Fatalf("business %d: the oracle found %d clashes, %d were planted:%s", b, len(want.Clashes), planted, messages(want))
		}
		if !reflect.DeepEqual(proof.Report(), want) {
			t.Fatalf("business %d:\n got %s\nwant %s", b, messages(proof.Report()), messages(want))
		}
		for e := 0; e < edits; {
			next := s.Clone()
			did := enginetest.RandomEdit(r, &next, today)
			if engine.Validate(next) != nil {
				continue
			}
			e++
			nt, err := engine.New(next)
			if err != nil {
				t.Fatal(err)
			}
			got, err := proof.Next(nt, today, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := engine.ClashesByDays(nt, today)
			clashes += len(want.Clashes)
			if !reflect.DeepEqual(got.Report(), want) {
				t.Fatalf("business %d, edit %d (%s):\n got %s\nwant %s", b, e, did, messages(got.Report()), messages(want))
			}
			if e%10 == 0 {
				full, err := nt.Prove(today, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(full.Report(), want) {
					t.Fatalf("business %d, edit %d, from scratch:\n got %s\nwant %s", b, e, messages(full.Report()), messages(want))
				}
			}
			s, proof = next, got
		}
	}
	t.Logf("%d businesses, %d clashes compared", businesses, clashes)
}

// shiftIDs moves every room and staff id of s by off, and every reference
// to them.
func shiftIDs(s *engine.State, off int64) {
	*s = s.Clone() // lists of ids may share an array
	shift := func(ids []int64) {
		for i := range ids {
			ids[i] += off
		}
	}
	for i := range s.Rooms {
		s.Rooms[i].ID += off
	}
	for i := range s.Staff {
		s.Staff[i].ID += off
	}
	for i := range s.Classes {
		shift(s.Classes[i].StaffIDs)
	}
	for i := range s.ClassTimes {
		s.ClassTimes[i].RoomID += off
	}
	for i := range s.OneOffs {
		s.OneOffs[i].RoomID += off
	}
	for i := range s.RoomBookings {
		s.RoomBookings[i].RoomID += off
	}
	for i := range s.Capacity {
		s.Capacity[i].RoomID += off
	}
	for i := range s.Closures {
		shift(s.Closures[i].RoomIDs)
	}
	for i := range s.Changes {
		c := &s.Changes[i]
		if c.RoomID != 0 {
			c.RoomID += off
		}
		shift(c.StaffIDs)
	}
}
