package reference_test

import (
	"fmt"
	"strings"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/reference"
)

// A boxing class sold in two packages, one of which started on a Tuesday.
const exampleExport = `{
  "format": "recurring-scheduler-export", "version": 1,
  "tables": {
    "settings": [
      {"key": "business_name", "value": "Harbor Combat Club"}, {"key": "currency", "value": "KD"},
      {"key": "time_zone", "value": "Asia/Kuwait"}, {"key": "week_start", "value": "0"}
    ],
    "areas": [{"id": 1, "name": "Ring"}],
    "coaches": [{"id": 1, "name": "Marco Reyes"}],
    "activities": [{"id": 1, "name": "Boxing"}],
    "classes": [{"id": 1, "activity_id": 1}],
    "class_coaches": [{"class_id": 1, "coach_id": 1, "sort_order": 0}],
    "slots": [{"id": 1, "area_id": 1, "day": 4, "start_time": "18:00", "end_time": "19:00"}],
    "packages": [
      {"id": 1, "name": "Boxing", "start_date": "2025-08-31", "cycle_weeks": 1},
      {"id": 2, "name": "All Access", "start_date": "2025-09-02", "cycle_weeks": 1}
    ],
    "package_entries": [
      {"id": 1, "package_id": 1, "slot_id": 1, "class_id": 1, "week": 1},
      {"id": 2, "package_id": 2, "slot_id": 1, "class_id": 1, "week": 1}
    ],
    "package_plans": [{"id": 1, "package_id": 2, "months": 1, "price": 47.5}],
    "session_changes": [{"id": 1, "date": "2025-09-11", "slot_id": 1, "class_id": 1, "cancelled": true, "note": "Coach away"}]
  }
}`

func ExampleRead() {
	imp, err := reference.Read(strings.NewReader(exampleExport))
	if err != nil {
		panic(err)
	}
	fmt.Println(imp.State.Plans[0].Price.Format(imp.State.Business.Currency))
	tt, err := engine.New(imp.State)
	if err != nil {
		panic(err)
	}
	for _, d := range []engine.Date{engine.MustDate(2025, 9, 4), engine.MustDate(2025, 9, 11)} {
		for _, s := range tt.Day(d) {
			fmt.Println(d, s.Start, "series", s.Series, "cancelled:", s.Cancelled)
		}
	}
	for _, n := range imp.Notes {
		fmt.Println(n.Table)
	}
	// Output:
	// 47.5 KD
	// 2025-09-04 18:00 series [{1 1 1} {2 1 1}] cancelled: false
	// 2025-09-11 18:00 series [{1 1 1} {2 1 1}] cancelled: true
	// packages
}
