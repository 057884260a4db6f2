package graph_test

import (
	"fmt"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// BenchmarkRecordTimeOff records a week's time off for one staff member of
// a synthetic business of 10,000 class times through the server (HTTP
// handler, GraphQL, the guarded write with its clash proof and the
// sessions it leaves needing cover), on SQLite and PostgreSQL; each time
// off is removed again outside the timer. For comparison, baseline=note
// is a write as small on the same business: a note on one session.
func BenchmarkRecordTimeOff(b *testing.B) {
	eachBenchDatabase(b, func(b *testing.B, d modelstest.Database) {
		st := enginetest.Business(enginetest.Options{ClassTimes: 10000, Seed: 1, Today: engine.DateOf(now)})
		h, tok, _, _ := benchAPI(b, d, "scale", st, models.Owner)
		post := func(query string) map[string]any {
			out := benchAnswer(b, h, tok, query, nil)
			if out["errors"] != nil {
				b.Fatalf("%s: %v", query, out["errors"])
			}
			data, _ := out["data"].(map[string]any)
			return data
		}
		staff := rows(post(`{ staff { id } }`), "staff")
		post(`{ days(from: "2026-12-06", to: "2026-12-13") { date } }`) // warm the snapshot
		b.Run("baseline=note", func(b *testing.B) {
			ref := sessionRefOfData(post(`{ day(date: "2026-12-15") { sessions { ref { date classTime { id } class { id } } } } }`))
			for i := 0; i < b.N; i++ {
				post(fmt.Sprintf(`mutation { changeSession(ref: %s, change: {note: "n%d"}) { revision } }`, ref, i))
			}
		})
		b.Run("createTimeOff", func(b *testing.B) {
			cover := 0
			for i := 0; i < b.N; i++ {
				who := path(staff[i%len(staff)], "id").(string)
				data := post(fmt.Sprintf(`mutation { createTimeOff(input: {staffId: %q, from: "2026-12-14", to: "2026-12-20"}) { timeOff { id } needsCover { firstDate } } }`, who))
				cover += len(rows(path(data, "createTimeOff"), "needsCover"))
				b.StopTimer()
				post(fmt.Sprintf(`mutation { deleteTimeOff(id: %q) { id } }`, path(data, "createTimeOff", "timeOff", "id")))
				b.StartTimer()
			}
			b.ReportMetric(float64(cover)/float64(b.N), "runs/op")
		})
	})
}

// sessionRefOfData is the first session ref of a day's answer, as a
// SessionRefInput literal.
func sessionRefOfData(data map[string]any) string {
	s := rows(path(data, "day"), "sessions")[0]
	return fmt.Sprintf(`{date: %q, classTimeId: %q, classId: %q}`, path(s, "ref", "date"), path(s, "ref", "classTime", "id"), path(s, "ref", "class", "id"))
}
