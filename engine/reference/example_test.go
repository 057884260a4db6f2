package reference_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/reference"
)

// A boxing class sold in two packages, as the reference system exports it:
// its SQLite tables, booleans as 0/1, a session change keyed by date, slot
// and class.
const exampleExport = `{
  "format": "recurring-scheduler-export", "version": 1, "exportedAt": "2025-09-01T12:00:00.000Z",
  "tables": {
    "settings": [{"key": "kind", "value": "gym"}, {"key": "name", "value": "Harbor Combat Club"}, {"key": "currency", "value": "KD"}],
    "areas": [{"id": 1, "name": "Ring", "sort": 0}],
    "coaches": [{"id": 1, "name": "Marco Reyes"}],
    "activities": [{"id": 1, "name": "Boxing", "color": "#e5484d"}],
    "classes": [{"id": 1, "activity_id": 1, "coach_id": 1}],
    "class_coaches": [],
    "slots": [{"id": 1, "area_id": 1, "day": 4, "start_time": "18:00", "end_time": "19:00", "label": "Adults",
               "capacity": 20, "type": "group", "buffer_minutes": 0, "active": 1}],
    "packages": [
      {"id": 1, "name": "Boxing", "anchor_date": "2025-08-31", "end_date": null, "cycle_length": 1},
      {"id": 2, "name": "All Access", "anchor_date": "2025-08-31", "end_date": null, "cycle_length": 1}
    ],
    "package_entries": [
      {"id": 1, "package_id": 1, "slot_id": 1, "class_id": 1, "week_position": 1},
      {"id": 2, "package_id": 2, "slot_id": 1, "class_id": 1, "week_position": 1}
    ],
    "package_plans": [{"id": 1, "package_id": 2, "label": null, "classes_per_month": 12, "months": 1, "price": 47.5}],
    "members": [], "package_members": [], "one_offs": [], "one_off_members": [],
    "session_changes": [{"id": 1, "date": "2025-09-11", "slot_id": 1, "class_id": 1, "cancelled": 1, "new_date": null,
                         "area_id": null, "start_time": null, "end_time": null, "new_class_id": null, "note": "Coach away"}]
  }
}`

func ExampleRead() {
	kuwait, err := time.LoadLocation("Asia/Kuwait")
	if err != nil {
		panic(err)
	}
	imp, err := reference.Read(strings.NewReader(exampleExport), reference.Options{Location: kuwait, WeekStart: time.Sunday})
	if err != nil {
		panic(err)
	}
	fmt.Println(imp.State.Plans[0].Price.Format(imp.State.Business.Currency), imp.State.Plans[0].PerMonth, "a month")
	tt, err := engine.New(imp.State)
	if err != nil {
		panic(err)
	}
	for _, d := range []engine.Date{engine.MustDate(2025, 9, 4), engine.MustDate(2025, 9, 11)} {
		for _, s := range tt.Day(d) {
			fmt.Println(d, s.Start, "series", s.Series, "cancelled:", s.Cancelled)
		}
	}
	// Output:
	// 47.5 KD 12 a month
	// 2025-09-04 18:00 series [{1 1 1} {2 1 1}] cancelled: false
	// 2025-09-11 18:00 series [{1 1 1} {2 1 1}] cancelled: true
}
