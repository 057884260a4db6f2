package graph_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/99designs/gqlgen/client"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

// crowdedPool is a business whose clash proof is heavy by nature: n
// one-lane classes at the same hour in a pool with a lane for each. Taking
// lanes away makes every set of lanes+1 of them a minimal overload, which
// no proof finishes listing in a request's time.
func (a *api) crowdedPool(slug string, n int) (token string, pool int64) {
	a.t.Helper()
	ctx := context.Background()
	biz := engine.Business{Kind: engine.Gym, Name: "Crowded Pool", Currency: "KD", Location: time.UTC, WeekStart: time.Sunday}
	st := engine.State{Business: biz,
		Rooms:      []engine.Room{{ID: 1, Name: "Pool", Capacity: n}},
		Activities: []engine.Activity{{ID: 1, Name: "Swim"}},
		Series:     []engine.Series{{ID: 1, Name: "Lanes", Anchor: engine.DateOf(now).WeekStart(time.Sunday), Cycle: 1}},
	}
	for i := int64(1); i <= int64(n); i++ {
		st.Staff = append(st.Staff, engine.Staff{ID: i, Name: fmt.Sprintf("Coach %d", i)})
		st.Classes = append(st.Classes, engine.Class{ID: i, ActivityID: 1, StaffIDs: []int64{i}})
		st.ClassTimes = append(st.ClassTimes, engine.ClassTime{ID: i, RoomID: 1, Weekday: time.Tuesday,
			Start: engine.MustTime("09:00"), End: engine.MustTime("10:00"), Units: 1})
		st.Entries = append(st.Entries, engine.Entry{ID: i, SeriesID: 1, ClassTimeID: i, ClassID: i, Week: 1})
	}
	b, err := models.CreateBusiness(ctx, a.db.DB, slug, biz)
	if err != nil {
		a.t.Fatal(err)
	}
	res, err := a.store.Write(ctx, b.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil })
	if err != nil {
		a.t.Fatal(err)
	}
	return a.token(slug, models.Owner), res.After.State.Rooms[0].ID
}

// TestRequestDeadlineStopsTheProof sends a write whose clash proof would
// run for hours through a handler that gives requests a deadline, as serve
// does (60 s there, 300 ms here): the write stops at the deadline with
// TIMEOUT and changes nothing.
func TestRequestDeadlineStopsTheProof(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok, pool := a.crowdedPool("crowded", 40)
		before := a.dump(tok)
		const deadline = 300 * time.Millisecond
		timed := a.with(t)
		timed.c = client.New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), deadline)
			defer cancel()
			a.handler.ServeHTTP(w, r.WithContext(ctx))
		}))
		start := time.Now()
		e := timed.fails(tok, "TIMEOUT", `mutation($id: ID!) { updateRoom(id: $id, input: {capacity: 20}) { room { capacity } } }`,
			map[string]any{"id": strconv.FormatInt(pool, 10)})
		took := time.Since(start)
		t.Logf("stopped after %v (deadline %v): %s", took, deadline, e.Message)
		if took > deadline+time.Second {
			t.Errorf("the write ran %v past a deadline of %v", took, deadline)
		}
		if after := a.dump(tok); after != before {
			t.Errorf("a stopped write changed the business:\n%s\n%s", before, after)
		}
	})
}
