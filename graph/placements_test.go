package graph_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/koredyne/schedule/engine"
)

// placementsQuery asks for a page of placements of the input given.
const placementsQuery = `query($input: PlacementsInput!, $after: String) {
	placements(input: $input, first: 500, after: $after) {
		totalCount
		nodes { room { id } weekday start end week }
		pageInfo { hasNextPage endCursor }
	}
}`

// TestPlacementsAgreeWithTheWrite asks where an hour of a gym class could
// go in a two-week rotation, page by page, and writes a sample of the
// placements and of the starts left out as a dry-run createSeries with a
// new class time through the real server: every placement adds no clash
// and is not refused, and every start left out adds a clash (which a dry
// run reports and a write refuses with CLASH) or is refused with
// STAFF_UNAVAILABLE.
func TestPlacementsAgreeWithTheWrite(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("place", engine.Gym)
		data := a.ok(tok, `{ business { weekStart } classes { id } rooms { id } classTimes { room { id } weekday start end } }`, nil)
		classes, rooms := rows(data, "classes"), rows(data, "rooms")
		taken := map[string]bool{} // class times that exist: createSeries would take them, not make new ones
		for _, ct := range rows(data, "classTimes") {
			taken[fmt.Sprint(path(ct, "room", "id"), path(ct, "weekday"), path(ct, "start"), path(ct, "end"))] = true
		}
		anchor := "2026-11-30" // the Monday of the week of now
		if path(data, "business", "weekStart") == "SUNDAY" {
			anchor = "2026-11-29"
		}
		r := rand.New(rand.NewPCG(31, 5))
		weekdays := []string{"MONDAY", "THURSDAY", "SATURDAY"}
		checked, refused := 0, 0
		for _, cl := range classes[:min(3, len(classes))] {
			class := path(cl, "id").(string)
			input := map[string]any{"classId": class, "minutes": 60, "cycleWeeks": 2, "weekdays": weekdays, "step": 30,
				"units": 0, "bufferMinutes": 0}
			placed := map[string]bool{}
			var list []map[string]any
			var after any
			for {
				page := path(a.ok(tok, placementsQuery, map[string]any{"input": input, "after": after}), "placements")
				for _, n := range rows(page, "nodes") {
					p := n.(map[string]any)
					placed[fmt.Sprint(path(p, "room", "id"), p["weekday"], p["start"], p["week"])] = true
					list = append(list, p)
				}
				if path(page, "pageInfo", "hasNextPage") != true {
					if total := int(path(page, "totalCount").(float64)); total != len(list) {
						t.Fatalf("class %s: totalCount %d, the pages hold %d", class, total, len(list))
					}
					break
				}
				after = path(page, "pageInfo", "endCursor")
			}
			// A sample of placements and of the grid.
			type point struct {
				room, weekday, start, end string
				week                      int
			}
			var sample []point
			for range 5 {
				if len(list) > 0 {
					p := list[r.IntN(len(list))]
					sample = append(sample, point{path(p, "room", "id").(string), p["weekday"].(string), p["start"].(string), p["end"].(string), int(p["week"].(float64))})
				}
			}
			for len(sample) < 14 {
				h := 6 + r.IntN(15)
				m := 30 * r.IntN(2)
				sample = append(sample, point{path(rooms[r.IntN(len(rooms))], "id").(string), weekdays[r.IntN(len(weekdays))],
					fmt.Sprintf("%02d:%02d", h, m), fmt.Sprintf("%02d:%02d", h+1, m), 1 + r.IntN(2)})
			}
			for _, p := range sample {
				if taken[fmt.Sprint(p.room, p.weekday, p.start, p.end)] {
					continue
				}
				res := a.do(tok, `mutation($input: CreateSeriesInput!) { createSeries(input: $input, dryRun: true) { clashes { message } } }`, map[string]any{
					"input": map[string]any{"name": "Placement check", "anchorDate": anchor, "cycleWeeks": 2, "entries": []any{map[string]any{
						"week": p.week, "classId": class,
						"classTime": map[string]any{"roomId": p.room, "weekday": p.weekday, "start": p.start, "end": p.end}}}},
				})
				isPlaced := placed[fmt.Sprint(p.room, p.weekday, p.start, p.week)]
				clashes := rows(path(res.Data, "createSeries"), "clashes")
				switch {
				case len(res.Errors) == 0 && len(clashes) > 0: // a dry run reports the clashes a write would refuse
					refused++
					if isPlaced {
						t.Errorf("class %s, %+v: a placement, but the write would add %v", class, p, clashes)
					}
				case len(res.Errors) == 0:
					if !isPlaced {
						t.Errorf("class %s, %+v: the write saves it, but it is no placement", class, p)
					}
				case slices.Contains([]string{"CLASH", "STAFF_UNAVAILABLE"}, res.Errors[0].code()):
					refused++
					if isPlaced {
						t.Errorf("class %s, %+v: a placement, but the write refuses it: %s", class, p, res.Errors[0].Message)
					}
				default:
					t.Fatalf("class %s, %+v: %+v", class, p, res.Errors)
				}
				checked++
			}
		}
		if checked == 0 || refused == 0 || refused == checked {
			t.Fatalf("%d checked, %d refused: the test proves little", checked, refused)
		}
	})
}

// TestPlacementsRefuseBadInput names the field of each bad input, for a
// class or room of another business too.
func TestPlacementsRefuseBadInput(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("place", engine.Gym)
		other := a.business("elsewhere", engine.Office)
		class := path(rows(a.ok(tok, `{ classes { id } }`, nil), "classes")[0], "id")
		otherClass := path(rows(a.ok(other, `{ classes { id } }`, nil), "classes")[0], "id")
		otherRoom := path(rows(a.ok(other, `{ rooms { id } }`, nil), "rooms")[0], "id")
		for _, c := range []struct {
			input map[string]any
			field string
		}{
			{map[string]any{"minutes": 0}, "minutes"},
			{map[string]any{"minutes": 24*60 + 1}, "minutes"},
			{map[string]any{"step": 0}, "step"},
			{map[string]any{"cycleWeeks": 0}, "cycleWeeks"},
			{map[string]any{"cycleWeeks": 9}, "cycleWeeks"},
			{map[string]any{"cycleWeeks": 2, "weeks": []int{3}}, "weeks"},
			{map[string]any{"weeks": []int{0}}, "weeks"},
			{map[string]any{"earliest": "10:00", "latest": "10:00"}, "earliest"},
			{map[string]any{"latest": "05:00"}, "earliest"},
			{map[string]any{"classId": "999999"}, "classId"},
			{map[string]any{"classId": otherClass}, "classId"},
			{map[string]any{"roomIds": []any{otherRoom}}, "roomIds"},
			{map[string]any{"units": -1}, "units"},
			{map[string]any{"bufferMinutes": 1441}, "bufferMinutes"},
		} {
			input := map[string]any{"classId": class, "minutes": 60}
			for k, v := range c.input {
				input[k] = v
			}
			e := a.fails(tok, "BAD_USER_INPUT", placementsQuery, map[string]any{"input": input})
			if e.Extensions["field"] != c.field {
				t.Errorf("%v: field %v, want %s (%s)", c.input, e.Extensions["field"], c.field, e.Message)
			}
		}
	})
}
