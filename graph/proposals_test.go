package graph_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/solve"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
)

// proposalFields is what the background tests read of a proposal.
const proposalFields = `id status stopped placed progress { spent budget placed unplaced soft }
	score { total unplaced parts { name value } } unplaced { line missing constraints { kind } }
	series { name entries { week classTime { weekday start end room { id } } } }`

// held is a test hook for the background searches: the first search to
// report work (after its construction) is held there, its progress sent
// on reached, until cancelProposal ends its context. Every other search
// runs on.
type held struct {
	taken   atomic.Bool
	reached chan solve.Progress
}

func (h *held) progress(ctx context.Context, g solve.Progress) {
	if g.Work == 0 || !h.taken.CompareAndSwap(false, true) {
		return
	}
	h.reached <- g
	<-ctx.Done()
}

// TestProposeInTheBackground: a background proposal answers at once,
// RUNNING; read while its search is held at a known count of work, it
// shows that work and the best so far; no client token and no other
// business sees or cancels it; cancelled, it is the best found by then,
// CANCELLED, proven by the dry run and applied like any other. Another
// runs to its budget (DONE), the same as the synchronous answer; and the
// store's Close (the server's shutdown) ends a search under way.
func TestProposeInTheBackground(t *testing.T) {
	var h *held
	var proposals *graph.Proposals
	tune := func(r *graph.Resolver) {
		h = &held{reached: make(chan solve.Progress, 1)}
		proposals = graph.ProposalsWith(h.progress, false)
		r.Proposals = proposals
	}
	eachDatabaseWith(t, tune, func(t *testing.T, a *api) {
		tok := a.business("jobs", engine.Gym)
		other := a.business("jobs-other", engine.Gym)
		activity := idOf(a, tok, "activities", "name", "Mobility")
		coach := rows(a.ok(tok, `{ staff { id } }`, nil), "staff")[0].(map[string]any)["id"]
		// One coach, and a window only one session fits: the search never
		// reaches a soft score of 0, so it runs until it is stopped.
		in := map[string]any{"demand": []any{map[string]any{"activityId": activity, "staffIds": []any{coach}, "sessionsPerWeek": 3, "minutes": 60,
			"windows": []any{map[string]any{"weekdays": []any{"MONDAY"}, "start": "06:00", "end": "07:00"}}}},
			"timeLimit": 60, "seed": 1, "background": true}
		q := `mutation($in: ProposeTimetableInput!) { proposeTimetable(input: $in) { ` + proposalFields + ` } }`
		started := path(a.ok(tok, q, map[string]any{"in": in}), "proposeTimetable")
		id := path(started, "id")
		if path(started, "status") != "RUNNING" || path(started, "progress", "budget") != float64(60*4_000_000) || len(rows(started, "series")) != 0 {
			t.Fatalf("answered %v: want RUNNING at once, the budget of 60 s, no series yet", started)
		}
		var g solve.Progress
		select {
		case g = <-h.reached:
		case <-time.After(5 * time.Minute): // a guard: the search reports work within its first 64 steps
			t.Fatal("the search never reported any work")
		}

		read := `query($id: ID!) { proposal(id: $id) { ` + proposalFields + ` } }`
		running := path(a.ok(tok, read, map[string]any{"id": id}), "proposal")
		want := map[string]any{"spent": float64(g.Work), "budget": float64(g.Budget), "placed": float64(g.Placed), "unplaced": float64(g.Unplaced), "soft": float64(g.Soft)}
		if path(running, "status") != "RUNNING" || fmt.Sprint(path(running, "progress")) != fmt.Sprint(want) ||
			path(running, "placed") != float64(g.Placed) || path(running, "score", "total") != float64(g.Soft) {
			t.Fatalf("while held at %+v it reads %v", g, running)
		}
		if g.Work <= 0 || g.Placed+g.Unplaced != 3 {
			t.Errorf("progress %+v: want some work and the 3 sessions counted", g)
		}
		apply := `mutation($id: ID!, $dry: Boolean) { applyProposal(id: $id, dryRun: $dry) { dryRun clashes { message } series { name entries { id } } } }`
		if e := a.fails(tok, "BAD_USER_INPUT", apply, map[string]any{"id": id, "dry": true}); e.Extensions["field"] != "id" {
			t.Errorf("applying a search under way: %+v", e)
		}

		// Nobody else sees or stops it.
		cancel := `mutation($id: ID!) { cancelProposal(id: $id) { ` + proposalFields + ` } }`
		client := clientToken(a, tok, "jobs")
		for _, c := range []struct{ who, tok, code string }{{"another business", other, "NOT_FOUND"}, {"a client", client, "FORBIDDEN"},
			{"read-only", a.token("jobs", models.ReadOnly), "FORBIDDEN"}} {
			for _, doc := range []string{read, cancel} {
				r := a.do(c.tok, doc, map[string]any{"id": id})
				if len(r.Errors) != 1 || r.Errors[0].code() != c.code || strings.Contains(fmt.Sprint(r.Data), "RUNNING") {
					t.Errorf("%s: %s answers %v %+v, want %s and nothing else", c.who, doc[:20], r.Data, r.Errors, c.code)
				}
			}
		}
		if s := path(a.ok(tok, read, map[string]any{"id": id}), "proposal", "status"); s != "RUNNING" {
			t.Fatalf("after the others tried to cancel it: %v", s)
		}

		// Cancelled: the best found by then, proven.
		done := path(a.ok(tok, cancel, map[string]any{"id": id}), "cancelProposal")
		placed := path(done, "placed").(float64)
		if path(done, "status") != "CANCELLED" || path(done, "stopped") != true || path(done, "progress", "spent") != float64(g.Work) {
			t.Fatalf("cancelled: %v; want CANCELLED, stopped where it was held (%d)", done, g.Work)
		}
		if placed < float64(g.Placed) || path(done, "score", "unplaced") != 3-placed || path(done, "progress", "placed") != placed {
			t.Errorf("cancelled: placed %v, score %v, progress %v; the best so far placed %d", placed, path(done, "score"), path(done, "progress"), g.Placed)
		}
		entries := 0
		for _, s := range rows(done, "series") {
			entries += len(rows(s, "entries"))
		}
		if entries != int(placed) || placed == 0 {
			t.Errorf("cancelled: %d entries for %v placed", entries, placed)
		}
		if again := path(a.ok(tok, read, map[string]any{"id": id}), "proposal"); fmt.Sprint(again) != fmt.Sprint(done) {
			t.Errorf("read after the cancel:\n%v\nwant\n%v", again, done)
		}
		// Its series are read from its dry run, and nothing beside it is:
		// the rest of the request reads the timetable as it is.
		series := len(rows(a.ok(tok, `{ allSeries { id } }`, nil), "allSeries"))
		both := a.ok(tok, `query($id: ID!) { proposal(id: $id) { series { entries { id } } } allSeries { id } }`, map[string]any{"id": id})
		if n := len(rows(both, "allSeries")); n != series || len(rows(rows(path(both, "proposal"), "series")[0], "entries")) != int(placed) {
			t.Errorf("read beside allSeries: %d series (want %d), the proposal's %v", n, series, path(both, "proposal"))
		}
		dry := path(a.ok(tok, apply, map[string]any{"id": id, "dry": true}), "applyProposal")
		if len(rows(dry, "clashes")) != 0 {
			t.Fatalf("the cancelled proposal's dry run: %v", dry)
		}
		applied := path(a.ok(tok, apply, map[string]any{"id": id}), "applyProposal")
		if path(applied, "dryRun") != false || len(rows(rows(applied, "series")[0], "entries")) != int(placed) {
			t.Errorf("applied: %v", applied)
		}

		// Run to its budget: DONE, the same as the answer made at once.
		in["timeLimit"], in["seed"] = 1, 2
		bg := path(a.ok(tok, q, map[string]any{"in": in}), "proposeTimetable", "id")
		proposals.Wait()
		finished := path(a.ok(tok, read, map[string]any{"id": bg}), "proposal")
		if path(finished, "status") != "DONE" || path(finished, "progress", "spent").(float64) < 4_000_000 && path(finished, "stopped") != true {
			t.Fatalf("run to its end: %v", finished)
		}
		delete(in, "background")
		now := path(a.ok(tok, q, map[string]any{"in": in}), "proposeTimetable")
		if path(now, "status") != "DONE" {
			t.Errorf("a proposal made at once: status %v", path(now, "status"))
		}
		if again := path(a.ok(tok, read, map[string]any{"id": path(now, "id")}), "proposal"); fmt.Sprint(again) != fmt.Sprint(now) {
			t.Errorf("a proposal made at once, read again:\n%v\nwant\n%v", again, now)
		}
		if path(now, "stopped") == false && path(finished, "stopped") == false { // neither cut short by its deadline
			if fmt.Sprint(path(now, "score"), path(now, "series")) != fmt.Sprint(path(finished, "score"), path(finished, "series")) {
				t.Errorf("the same input and seed, in the background:\n%v\nat once:\n%v", finished, now)
			}
		}

		// The shutdown stops a search under way and waits for it; after it
		// no search starts.
		in["timeLimit"], in["background"] = 60, true
		last := path(a.ok(tok, q, map[string]any{"in": in}), "proposeTimetable", "id")
		ctx, stop := context.WithTimeout(context.Background(), 5*time.Minute)
		defer stop()
		if err := proposals.Close(ctx); err != nil {
			t.Fatalf("close: %v", err)
		}
		r := a.do(tok, read, map[string]any{"id": last})
		if path(r.Data, "proposal", "status") != "FAILED" || len(r.Errors) != 1 {
			t.Errorf("a search the shutdown ended reads %v %+v: want FAILED and why", r.Data, r.Errors)
		}
		a.fails(tok, "UNAVAILABLE", q, map[string]any{"in": in})
	})
}

// TestBackgroundSearchesBounded: a business has at most two searches
// under way; a third is refused, naming background, until one ends.
func TestBackgroundSearchesBounded(t *testing.T) {
	var proposals *graph.Proposals
	tune := func(r *graph.Resolver) {
		// Hold every search until it is cancelled.
		proposals = graph.ProposalsWith(func(ctx context.Context, g solve.Progress) {
			if g.Work > 0 {
				<-ctx.Done()
			}
		}, false)
		r.Proposals = proposals
	}
	eachDatabaseWith(t, tune, func(t *testing.T, a *api) {
		tok := a.business("bounded", engine.Gym)
		other := a.business("bounded-other", engine.Gym)
		q := `mutation($in: ProposeTimetableInput!) { proposeTimetable(input: $in) { id status } }`
		in := func(tok string) map[string]any {
			coach := rows(a.ok(tok, `{ staff { id } }`, nil), "staff")[0].(map[string]any)["id"]
			return map[string]any{"in": map[string]any{"demand": []any{map[string]any{"activityId": idOf(a, tok, "activities", "name", "Mobility"),
				"staffIds": []any{coach}, "sessionsPerWeek": 3, "minutes": 60, "windows": []any{map[string]any{"weekdays": []any{"MONDAY"}, "start": "06:00", "end": "07:00"}}}},
				"timeLimit": 60, "background": true}}
		}
		var ids []any
		for range 2 {
			ids = append(ids, path(a.ok(tok, q, in(tok)), "proposeTimetable", "id"))
		}
		if e := a.fails(tok, "BAD_USER_INPUT", q, in(tok)); e.Extensions["field"] != "background" {
			t.Errorf("a third search: %+v", e)
		}
		// Another business has its own.
		theirs := path(a.ok(other, q, in(other)), "proposeTimetable", "id")
		a.ok(tok, `mutation($id: ID!) { cancelProposal(id: $id) { status } }`, map[string]any{"id": ids[0]})
		a.ok(tok, q, in(tok))
		// Every search ends with the store.
		ctx, stop := context.WithTimeout(context.Background(), 5*time.Minute)
		defer stop()
		if err := proposals.Close(ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			tok string
			id  any
		}{{tok, ids[1]}, {other, theirs}} {
			if s := path(a.do(c.tok, `query($id: ID!) { proposal(id: $id) { status } }`, map[string]any{"id": c.id}).Data, "proposal", "status"); s != "FAILED" {
				t.Errorf("a search the store's Close ended: %v", s)
			}
		}
	})
}

// TestProposalRepairedIsRescored: the solver, blind to the timetable (a
// test hook), places sessions where the business already runs others; the
// clash proof refuses them and the repair drops them. The score answered
// is that of what is proposed, counted here from its series: sessions
// outside the window, and pairs on one day (daysApart 1), one room and one
// coach.
func TestProposalRepairedIsRescored(t *testing.T) {
	tune := func(r *graph.Resolver) { r.Proposals = graph.ProposalsWith(nil, true) }
	eachDatabaseWith(t, tune, func(t *testing.T, a *api) {
		tok := a.business("repair", engine.Gym)
		activity := idOf(a, tok, "activities", "name", "Boxing")
		coach := idOf(a, tok, "staff", "name", "Marco Reyes")
		ring := a.ringID(tok)
		const sessions = 10
		in := map[string]any{"demand": []any{map[string]any{"activityId": activity, "staffIds": []any{coach}, "roomIds": []any{ring},
			"sessionsPerWeek": sessions, "minutes": 60, "daysApart": 1,
			"windows": []any{map[string]any{"start": "19:00", "end": "20:00"}}}},
			"timeLimit": 1, "seed": 5, "earliest": "06:00", "latest": "22:00"}
		p := path(a.ok(tok, propose, map[string]any{"in": in}), "proposeTimetable")
		un := rows(p, "unplaced")
		if len(un) != 1 || !slices.ContainsFunc(rows(un[0], "constraints"), func(c any) bool { return path(c, "kind") == "timetable" }) {
			t.Fatalf("unplaced %v: want places the clash proof refused", un)
		}
		placed := int(path(p, "placed").(float64))
		var outside int
		perDay := map[string]int{}
		for _, s := range rows(p, "series") {
			for _, e := range rows(s, "entries") {
				ct := path(e, "classTime").(map[string]any)
				if ct["start"].(string) < "19:00" || ct["end"].(string) > "20:00" {
					outside++
				}
				perDay[fmt.Sprint(path(e, "week"), ct["weekday"])]++
			}
		}
		pairs := 0
		for _, n := range perDay {
			pairs += n * (n - 1) / 2
		}
		want := map[string]float64{"window": float64(outside), "daysApart": float64(pairs), "sameRoom": 0, "sameCoach": 0}
		got := map[string]float64{}
		for _, part := range rows(path(p, "score"), "parts") {
			got[path(part, "name").(string)] = path(part, "value").(float64)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || path(p, "score", "total") != float64(outside+pairs) ||
			path(p, "score", "unplaced") != float64(sessions-placed) || path(un[0], "missing") != float64(sessions-placed) {
			t.Errorf("the score answered is %v (%v), what is proposed (%d placed) scores %v, %d unplaced", path(p, "score"), got, placed, want, sessions-placed)
		}
		t.Logf("placed %d of %d; score %v", placed, sessions, path(p, "score"))
		// What is left is proven: it applies with no clash.
		dry := a.ok(tok, `mutation($id: ID!) { applyProposal(id: $id, dryRun: true) { clashes { message } } }`, map[string]any{"id": path(p, "id")})
		if len(rows(path(dry, "applyProposal"), "clashes")) != 0 {
			t.Errorf("the repaired proposal clashes: %v", dry)
		}
	})
}

// clientToken is a CLIENT token of the business slug, for its first
// client.
func clientToken(a *api, owner, slug string) string {
	a.t.Helper()
	ctx := context.Background()
	b, err := models.BusinessBySlug(ctx, a.db.DB, slug)
	if err != nil {
		a.t.Fatal(err)
	}
	var client int64
	fmt.Sscan(path(rows(a.ok(owner, `{ clients(first: 1) { nodes { id } } }`, nil), "clients")[0], "id").(string), &client)
	tok, _, err := models.CreateScopedToken(ctx, a.db.DB, b.ID, models.ClientRole, "client", "", client, 0)
	if err != nil {
		a.t.Fatal(err)
	}
	return tok
}
