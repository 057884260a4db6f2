package reference_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/koredyne/schedule/engine"
)

// randomExport makes an export with packages that start and end on any day
// of the week, rotations of 1 to 6 weeks, any week start, changes of every
// kind (some naming no session) and one-offs.
func randomExport(rng *rand.Rand) map[string]any {
	pick := func(n int) int { return rng.IntN(n) + 1 }
	hm := func(m int) string { return fmt.Sprintf("%02d:%02d", m/60, m%60) }
	base := engine.MustDate(2025, 1, 1)
	tables := map[string]any{
		"settings": []any{
			map[string]any{"key": "business_name", "value": "Random"},
			map[string]any{"key": "currency", "value": "EUR"},
			map[string]any{"key": "time_zone", "value": "Europe/Berlin"},
			map[string]any{"key": "week_start", "value": fmt.Sprint(rng.IntN(7))},
		},
	}
	var areas, coaches, activities, classes, links, slots, packages, entries, changes, oneOffs []any
	for i := 1; i <= 3; i++ {
		areas = append(areas, map[string]any{"id": i, "name": fmt.Sprint("Area ", i)})
		activities = append(activities, map[string]any{"id": i, "name": fmt.Sprint("Activity ", i)})
	}
	for i := 1; i <= 4; i++ {
		coaches = append(coaches, map[string]any{"id": i, "name": fmt.Sprint("Coach ", i)})
		classes = append(classes, map[string]any{"id": i, "activity_id": pick(3)})
		links = append(links, map[string]any{"class_id": i, "coach_id": i, "sort_order": 1})
	}
	type slot struct{ day, start int }
	var slotOf []slot
	for i := 1; i <= 6; i++ {
		s := slot{rng.IntN(7), 6*60 + 15*rng.IntN(56)}
		slotOf = append(slotOf, s)
		slots = append(slots, map[string]any{"id": i, "area_id": pick(3), "day": s.day, "start_time": hm(s.start),
			"end_time": hm(s.start + 60), "active": rng.IntN(10) != 0})
	}
	type key struct{ pkg, slot, week int }
	seen := map[key]bool{}
	type entry struct{ pkg, slot, class int }
	var made []entry
	for p := 1; p <= pick(4); p++ {
		start := base.AddDays(rng.IntN(60))
		cycle := pick(6)
		row := map[string]any{"id": p, "name": fmt.Sprint("Package ", p), "start_date": start.String(), "cycle_weeks": cycle}
		if rng.IntN(2) == 0 {
			row["end_date"] = start.AddDays(pick(80)).String()
		}
		packages = append(packages, row)
		for range pick(6) {
			k := key{p, pick(6), pick(cycle)}
			if seen[k] {
				continue
			}
			seen[k] = true
			e := entry{p, k.slot, pick(4)}
			made = append(made, e)
			entries = append(entries, map[string]any{"id": len(entries) + 1, "package_id": p, "slot_id": k.slot, "class_id": e.class, "week": k.week})
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
		ch := map[string]any{"id": len(changes) + 1, "date": d.String(), "slot_id": e.slot, "class_id": e.class}
		switch rng.IntN(6) {
		case 0:
			ch["cancelled"] = 1
		case 1:
			ch["new_date"] = d.AddDays(rng.IntN(21) - 10).String()
		case 2:
			s := 6*60 + 15*rng.IntN(56)
			ch["new_start_time"], ch["new_end_time"] = hm(s), hm(s+45)
		case 3:
			ch["new_area_id"] = pick(3)
		case 4:
			ch["new_class_id"] = pick(4)
		case 5:
			ch["new_coach_ids"] = []int{pick(4), pick(4)}
		}
		changes = append(changes, ch)
	}
	for i := range rng.IntN(3) {
		s := 6*60 + 15*rng.IntN(56)
		oneOffs = append(oneOffs, map[string]any{"id": i + 1, "class_id": pick(4), "area_id": pick(3),
			"date": base.AddDays(rng.IntN(120)).String(), "start_time": hm(s), "end_time": hm(s + 30), "cancelled": rng.IntN(4) == 0})
	}
	for k, v := range map[string][]any{"areas": areas, "coaches": coaches, "activities": activities, "classes": classes,
		"class_coaches": links, "slots": slots, "packages": packages, "package_entries": entries,
		"session_changes": changes, "one_offs": oneOffs} {
		tables[k] = v
	}
	return map[string]any{"format": "recurring-scheduler-export", "version": 1, "tables": tables}
}

func TestRandomExportsMatchTheReference(t *testing.T) {
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
			st := compareDays(t, b, span{"2024-12-01", "2025-07-01"})
			total.dates += st.dates
			total.sessions += st.sessions
			total.shared += st.shared
		})
	}
	t.Logf("compared %d dates, %d sessions (%d shared by several packages)", total.dates, total.sessions, total.shared)
	if total.sessions < 10000 || total.shared == 0 {
		t.Errorf("the random exports covered too little: %+v", total)
	}
}
