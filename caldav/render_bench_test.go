package caldav

import (
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/models"
)

// BenchmarkRenderMonthGym renders the events of a month of the whole gym
// (the month of BenchmarkReportMonthGym) with a fresh renderer each time,
// as the first request after every write does: their ETags, then their
// bytes.
func BenchmarkRenderMonthGym(b *testing.B) { benchmarkRenderMonthGym(b, "") }

// BenchmarkRenderMonthGymArabic is the same with the gym in Arabic: every
// description's words from the catalogue.
func BenchmarkRenderMonthGymArabic(b *testing.B) { benchmarkRenderMonthGym(b, "ar") }

func benchmarkRenderMonthGym(b *testing.B, lang string) {
	today := engine.MustDate(2026, 12, 1)
	st := demo.Gym(today)
	st.Business.Locale.Language = lang
	sn, err := models.NewSnapshot(models.Business{ID: 7, Slug: "harbor", Name: st.Business.Name, Kind: string(st.Business.Kind), Revision: 1}, st)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	end := time.Date(2026, 12, 27, 0, 0, 0, 0, time.UTC)
	n := 0
	for b.Loop() {
		r := newRenderer(sn)
		events := r.inRange(start, end, calendar{}.keep)
		for _, e := range events {
			r.object(e)
		}
		n = len(events)
	}
	b.ReportMetric(float64(n), "events")
}
