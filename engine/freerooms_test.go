package engine

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestFreeRoomsAgainstClashes compares FreeRooms, on generated businesses
// with capacity rules, units, buffers and room bookings, with the clash
// rule itself: a room is free for a span on a date exactly when a room
// booking of that span and units, added on that date, is in no room clash
// (checked on dates where the room is in no clash before).
func TestFreeRoomsAgainstClashes(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 9))
	valid, free, taken := 0, 0, 0
	for tries := 0; valid < 400 && tries < 4000; tries++ {
		s, _, from, to := randomState(r)
		if Validate(s) != nil {
			continue
		}
		valid++
		tt, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < 6; n++ {
			d := from + Date(r.IntN(int(to-from)))
			start := LocalTime(7*60 + 15*r.IntN(48))
			end := min(start+LocalTime(15+15*r.IntN(8)), EndOfDay)
			units := 1 + r.IntN(3)
			got := tt.FreeRooms([]Date{d}, start, end, units)
			day := tt.Day(d)
			clashed := map[int64]bool{}
			dayClashes(tt, d, day, tt.bookings[d], func() bool { return false }, func(k ClashKind, res, _ string, _ []int) {
				if k == RoomClash {
					id, _ := strconv.ParseInt(res, 10, 64)
					clashed[id] = true
				}
			})
			for _, room := range s.Rooms {
				if clashed[room.ID] || units > room.Units() || len(tt.rules[room.ID]) > 0 && units > 1 {
					continue // a booking of more units than the room has is refused before any clash
				}
				b := &RoomBooking{ID: 999, RoomID: room.ID, Date: d, Start: start, End: end, Units: units}
				with := append(slices.Clone(tt.bookings[d]), b)
				fits := true
				dayClashes(tt, d, day, with, func() bool { return false }, func(k ClashKind, _, _ string, members []int) {
					if k == RoomClash && slices.Contains(members, len(day)+len(with)-1) {
						fits = false
					}
				})
				if fits {
					free++
				} else {
					taken++
				}
				if fits != slices.Contains(got, room.ID) {
					t.Fatalf("state %d, room %d on %s %s–%s, %d units: free %v, FreeRooms %v", valid, room.ID, d, start, end, units, fits, got)
				}
			}
		}
	}
	if free == 0 || taken == 0 {
		t.Fatalf("%d free and %d taken: the test proves little", free, taken)
	}
	t.Logf("%d states, %d free and %d taken matched", valid, free, taken)
}
