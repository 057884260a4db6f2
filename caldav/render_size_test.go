package caldav

import (
	"runtime"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/cache"
)

// TestRendererEventsSize: the events a renderer keeps count towards the
// budget at an estimate between 1 and 3 times what the Go heap shows for
// them (a year of a business of 300 class times listed, one event in ten
// written out).
func TestRendererEventsSize(t *testing.T) {
	today := engine.MustDate(2026, 12, 1)
	st := enginetest.Business(enginetest.Options{ClassTimes: 300, Seed: 1, Today: today})
	budget := cache.NewBudget(1 << 30)
	in := cache.New[int64, *kept](budget, "calendars")
	// Businesses of their own, so each renderer is counted under its own key.
	rs := make([]*renderer, 5)
	sns := make([]*models.Snapshot, len(rs))
	for i := range sns {
		var err error
		sns[i], err = models.NewSnapshot(models.Business{ID: int64(i + 1), Slug: "big", Name: st.Business.Name, Kind: string(st.Business.Kind), Revision: 1}, st)
		if err != nil {
			t.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range rs {
		rs[i] = newRenderer(sns[i])
		rs[i].in = in
		in.Put(sns[i].Business.ID, rs[i].kept, rendererBase)
		for j, e := range rs[i].sessions(today, today+364, calendar{}.keep) {
			if j%10 == 0 {
				rs[i].object(e)
			}
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	estimate := budget.Held("calendars")
	events := 0
	for _, r := range rs {
		events += len(r.events)
	}
	t.Logf("%d events: heap %d B (%d an event), estimate %d B", events, heap, heap/int64(events), estimate)
	if events == 0 || estimate < heap || estimate > 3*heap {
		t.Errorf("estimate %d B for %d B of heap: want 1 to 3 times", estimate, heap)
	}
	runtime.KeepAlive(rs)
}
