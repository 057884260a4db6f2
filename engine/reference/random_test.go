package reference_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/reference"
)

// randomExport makes an export in the reference's format with rotations of
// 1 to 12 weeks, packages anchored on Sundays (as the reference's API makes
// them) and now and then on other days (as older versions or hand-written
// rows did), hand-overs, entries in weeks past their cycle, classes of
// several coaches and identical classes, changes of every kind (some naming
// no session), switched-off slots and one-offs; double bookings are left
// as they fall.
func randomExport(rng *rand.Rand) map[string]any {
	pick := func(n int) int { return rng.IntN(n) + 1 }
	hm := func(m int) string { return fmt.Sprintf("%02d:%02d", m/60, m%60) }
	base := engine.MustDate(2025, 1, 5) // a Sunday
	tables := map[string]any{
		"settings": []any{
			map[string]any{"key": "kind", "value": []string{"gym", "clinic", "office"}[rng.IntN(3)]},
			map[string]any{"key": "name", "value": "Random"},
			map[string]any{"key": "currency", "value": "EUR"},
		},
	}
	var areas, coaches, activities, classes, links, slots, packages, entries, changes, oneOffs []any
	for i := 1; i <= 3; i++ {
		areas = append(areas, map[string]any{"id": i, "name": fmt.Sprint("Area ", i), "sort": 3 - i})
		activities = append(activities, map[string]any{"id": i, "name": fmt.Sprint("Activity ", i), "color": nil})
	}
	for i := 1; i <= 4; i++ {
		coaches = append(coaches, map[string]any{"id": i, "name": fmt.Sprint("Coach ", i)})
		classes = append(classes, map[string]any{"id": i, "activity_id": pick(3), "coach_id": i})
		if rng.IntN(4) == 0 { // a second coach
			links = append(links, map[string]any{"class_id": i, "coach_id": i%4 + 1, "sort": 0})
		}
	}
	const nSlots = 6
	type slot struct{ day, start int }
	var slotOf []slot
	for i := 1; i <= nSlots; i++ {
		s := slot{rng.IntN(7), 6*60 + 15*rng.IntN(56)}
		slotOf = append(slotOf, s)
		active := 1
		if rng.IntN(10) == 0 {
			active = 0
		}
		slots = append(slots, map[string]any{"id": i, "area_id": pick(3), "day": s.day, "start_time": hm(s.start),
			"end_time": hm(s.start + 60), "label": nil, "capacity": nil, "type": "group", "buffer_minutes": 0, "active": active})
	}
	// An identical class (the same activity and coach as class 1) on a slot
	// of its own, as the reference's older versions could leave behind.
	twin := rng.IntN(3) == 0
	if twin {
		c1 := classes[0].(map[string]any)
		classes = append(classes, map[string]any{"id": 5, "activity_id": c1["activity_id"], "coach_id": 1})
	}
	type key struct{ pkg, slot, week int }
	seen := map[key]bool{}
	type entry struct{ pkg, slot, class int }
	var made []entry
	for p := 1; p <= pick(4); p++ {
		anchor := base.AddDays(7 * rng.IntN(9))
		if rng.IntN(5) == 0 {
			anchor = anchor.AddDays(rng.IntN(7))
		}
		cycle := pick(12)
		row := map[string]any{"id": p, "name": fmt.Sprint("Package ", p), "anchor_date": anchor.String(), "end_date": nil, "cycle_length": cycle}
		if rng.IntN(2) == 0 {
			end := anchor.AddDays(7 * pick(12))
			if rng.IntN(5) == 0 {
				end = end.AddDays(rng.IntN(7))
			}
			row["end_date"] = end.String()
			if rng.IntN(2) == 0 { // a hand-over: the next package starts as this one ends
				p++
				packages = append(packages, row)
				row = map[string]any{"id": p, "name": fmt.Sprint("Package ", p), "anchor_date": end.String(), "end_date": nil, "cycle_length": cycle}
			}
		}
		packages = append(packages, row)
		for range pick(6) {
			k := key{p, pick(nSlots), pick(cycle)}
			if rng.IntN(15) == 0 {
				k.week = cycle + pick(2) // stored, never runs
			}
			if seen[k] {
				continue
			}
			seen[k] = true
			e := entry{p, k.slot, pick(4)}
			if twin && k.slot == nSlots { // the twin has this slot to itself
				e.class = 5
			}
			made = append(made, e)
			entries = append(entries, map[string]any{"id": len(entries) + 1, "package_id": p, "slot_id": k.slot, "class_id": e.class, "week_position": k.week})
		}
	}
	type ref struct {
		date        engine.Date
		slot, class int
	}
	changed := map[ref]bool{}
	for range rng.IntN(6) {
		if len(made) == 0 {
			break
		}
		e := made[rng.IntN(len(made))]
		d := base.AddDays(rng.IntN(120))
		d = d.AddDays((slotOf[e.slot-1].day - int(d.Weekday()) + 7) % 7)
		if changed[ref{d, e.slot, e.class}] {
			continue
		}
		changed[ref{d, e.slot, e.class}] = true
		ch := map[string]any{"id": len(changes) + 1, "date": d.String(), "slot_id": e.slot, "class_id": e.class, "cancelled": 0,
			"new_date": nil, "area_id": nil, "start_time": nil, "end_time": nil, "new_class_id": nil, "note": nil}
		// Each part of a change now and then, so they combine: a session
		// moved and re-timed, cancelled after a move, covered in another room.
		if rng.IntN(4) == 0 {
			ch["cancelled"] = 1
		}
		switch rng.IntN(5) {
		case 0:
			ch["new_date"] = d.AddDays(rng.IntN(21) - 10).String()
		case 1: // a week on, onto its own next session
			ch["new_date"], ch["note"] = d.AddDays(7).String(), "Moved"
		}
		if rng.IntN(3) == 0 {
			s := 6*60 + 15*rng.IntN(56)
			ch["start_time"], ch["end_time"] = hm(s), hm(s+45)
		}
		if rng.IntN(3) == 0 {
			ch["area_id"] = pick(3)
		}
		if rng.IntN(3) == 0 {
			ch["new_class_id"] = pick(4)
		}
		changes = append(changes, ch)
	}
	for i := range rng.IntN(3) {
		s := 6*60 + 15*rng.IntN(56)
		oneOffs = append(oneOffs, map[string]any{"id": i + 1, "date": base.AddDays(rng.IntN(120)).String(), "area_id": pick(3),
			"class_id": pick(4), "start_time": hm(s), "end_time": hm(s + 30), "label": nil, "note": nil})
	}
	for k, v := range map[string][]any{"areas": areas, "coaches": coaches, "activities": activities, "classes": classes,
		"class_coaches": links, "slots": slots, "packages": packages, "package_entries": entries,
		"session_changes": changes, "one_offs": oneOffs} {
		tables[k] = v
	}
	return map[string]any{"format": "recurring-scheduler-export", "version": 1, "exportedAt": "2025-01-01T00:00:00.000Z", "tables": tables}
}

func TestRandomExportsMatchTheReference(t *testing.T) {
	berlin := zone(t, "Europe/Berlin")
	var total stats
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 7))
		b, err := json.Marshal(randomExport(rng))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("export: %s", b)
				}
			}()
			opts := reference.Options{Location: berlin, WeekStart: []time.Weekday{time.Sunday, time.Monday}[rng.IntN(2)]}
			st := compareDays(t, b, opts, span{"2024-12-01", "2025-07-01"})
			total.dates += st.dates
			total.sessions += st.sessions
			total.shared += st.shared
		})
	}
	t.Logf("compared %d dates, %d sessions (%d shared by several packages)", total.dates, total.sessions, total.shared)
	if total.sessions < 8000 || total.shared < 100 {
		t.Errorf("the random exports covered too little: %+v", total)
	}
}
