package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// idOp is a write whose arguments name ids $a, $b, $c and $d, each of a
// kind (what it should name; "" for none).
type idOp struct {
	doc   string
	kinds [4]string
}

// idOps are the updates (and the creates that share their inputs) with
// every place an id goes. Each is sent as a dry run, and when that is
// refused, as a write too.
var idOps = []idOp{
	{`updateSeries(id: $a, input: {entries: [{week: 1, classTimeId: $b, classId: $c}]}`, [4]string{"series", "classTime", "class"}},
	{`updateSeries(id: $a, input: {entries: [{week: 1, classTime: {roomId: $b, weekday: SATURDAY, start: "05:00", end: "05:30"}, class: {activityId: $c, staffIds: [$d]}}]}`,
		[4]string{"series", "room", "activity", "staff"}},
	{`updateSeries(id: $a, input: {plans: [{id: $b}], entries: [{week: 1, classTimeId: $c, classId: $d}]}`, [4]string{"series", "plan", "classTime", "class"}},
	{`updateSeries(id: $a, from: "2027-01-04", input: {cycleWeeks: 2, entries: [{week: 2, classTimeId: $b, classId: $c}]}`, [4]string{"series", "classTime", "class"}},
	{`updateOneOff(id: $a, input: {classId: $b, roomId: $c, clientIds: [$d]}`, [4]string{"oneOff", "class", "room", "client"}},
	{`updateOneOff(id: $a, input: {class: {activityId: $b, staffIds: [$c, $d]}}`, [4]string{"oneOff", "activity", "staff", "staff"}},
	{`updatePlan(id: $a, input: {seriesId: $b}`, [4]string{"plan", "series"}},
	{`updateMembership(id: $a, input: {clientId: $b, seriesId: $c, planId: $d}`, [4]string{"subscription", "client", "series", "plan"}},
	{`updateClass(id: $a, input: {activityId: $b, staffIds: [$c, $d]}`, [4]string{"class", "activity", "staff", "staff"}},
	{`updateClassTime(id: $a, input: {roomId: $b}`, [4]string{"classTime", "room"}},
	{`updateCapacityRule(id: $a, input: {roomId: $b}`, [4]string{"capacityRule", "room"}},
	{`changeSession(ref: {date: "2026-12-09", classTimeId: $a, classId: $b}, change: {roomId: $c, staffIds: [$d]}`, [4]string{"classTime", "class", "room", "staff"}},
	{`changeSession(ref: {date: "2026-12-09", classTimeId: $a, classId: $b}, change: {classId: $c}`, [4]string{"classTime", "class", "class"}},
	{`replaceSeriesFrom(id: $a, date: "2027-01-04"`, [4]string{"series"}},
	{`createSeries(input: {name: "Fuzz", anchorDate: "2027-01-04", entries: [{week: 1, classTimeId: $a, classId: $b}], plans: [{id: $c}]}`,
		[4]string{"classTime", "class", "plan"}},
	{`createOneOff(input: {classId: $a, roomId: $b, date: "2027-02-06", start: "10:00", end: "11:00", clientIds: [$c, $d]}`, [4]string{"class", "room", "client", "client"}},
	{`bookRoom(input: {roomId: $a, clientId: $b, date: "2027-02-06", start: "03:00", end: "04:00"}`, [4]string{"room", "client"}},
	{`bookSession(ref: {date: "2026-12-09", classTimeId: $a, classId: $b}, clientId: $c`, [4]string{"classTime", "class", "client"}},
	{`updateClient(id: $a, input: {}`, [4]string{"client"}},
	{`updateWebhookEndpoint(id: $a, input: {status: PAUSED}`, [4]string{"webhookEndpoint"}},
	{`updateTimeOff(id: $a, input: {staffId: $b}`, [4]string{"timeOff", "staff"}},
	{`createTimeOff(input: {staffId: $a, from: "2027-02-01", to: "2027-02-02"}`, [4]string{"staff"}},
	{`setWorkingHours(input: {staffId: $a, from: "2027-02-01", spans: [{weekday: MONDAY, start: "09:00", end: "17:00"}]}`, [4]string{"staff"}},
	{`deleteWorkingHours(id: $a`, [4]string{"workingHours"}},
	{`replayWebhooks(endpointId: $a, since: "2026-11-01T00:00:00Z"`, [4]string{"webhookEndpoint"}},
	{`updateStandingBooking(id: $a, input: {until: "2027-03-01"}`, [4]string{"standingBooking"}},
	{`endStandingBooking(id: $a, from: "2027-01-04"`, [4]string{"standingBooking"}},
	{`skipStandingDate(id: $a, date: "2026-12-15"`, [4]string{"standingBooking"}},
	{`swapStandingDate(id: $a, date: "2026-12-15", sessionId: "s/2026-12-16/1/1"`, [4]string{"standingBooking"}},
	{`createStandingBooking(input: {clientId: $a, sessionId: "s/2026-12-09/1/1", from: "2026-12-09"}`, [4]string{"client"}},
}

// idKinds lists, for each kind, the query that reads a business's ids.
var idKinds = map[string]string{
	"series": "allSeries", "classTime": "classTimes", "class": "classes", "room": "rooms", "activity": "activities", "staff": "staff",
	"plan": "plans", "oneOff": "oneOffs", "subscription": "memberships", "client": "clients", "capacityRule": "capacityRules",
	"webhookEndpoint": "webhookEndpoints", "timeOff": "timeOffs", "standingBooking": "standingBookings",
}

// idPool picks ids for an idOp from a fuzzer's number: 0, 1, … are
// alpha's rows of the kind, then beta's, then rows of every other kind of
// either; a negative number is an id no row has, or text that is no id.
type idPool struct {
	byKind map[string][]string // alpha's, then beta's
	all    []string
}

var noIDs = []string{"99999", "9223372036854775807", "0", "-3", "1e3", ""}

func (p idPool) pick(kind string, v int64) string {
	if v < 0 {
		return noIDs[(-(v + 1))%int64(len(noIDs))]
	}
	ids := append(slices.Clone(p.byKind[kind]), p.all...)
	return ids[v%int64(len(ids))]
}

// fuzzTarget is one database with alpha (the office demo, with a capacity
// rule and a webhook endpoint) and beta (the gym demo, with the same),
// served by the real handler.
type fuzzTarget struct {
	name  string
	h     http.Handler
	token string
	pool  idPool
	log   *lockedBuffer
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) take() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf.String()
	b.buf.Reset()
	return s
}

func newFuzzTarget(tb testing.TB, d modelstest.Database) *fuzzTarget {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	store := models.NewStore(d.DB, func() time.Time { return now })
	ctx := context.Background()
	ft := &fuzzTarget{name: d.Name, log: &lockedBuffer{}}
	ft.h = (&graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(ft.log, nil))}).Handler()
	tokens := map[string]string{}
	for slug, kind := range map[string]engine.Kind{"fuzz-alpha": engine.Office, "fuzz-beta": engine.Gym} {
		st, _ := demo.ByKind(kind, engine.DateOf(now))
		b, err := models.CreateBusiness(ctx, d.DB, slug, st.Business)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
			tb.Fatal(err)
		}
		if tokens[slug], _, err = models.CreateToken(ctx, d.DB, b.ID, models.Owner, "fuzz", ""); err != nil {
			tb.Fatal(err)
		}
	}
	ft.token = tokens["fuzz-alpha"]
	ft.pool = idPool{byKind: map[string][]string{}}
	for _, slug := range []string{"fuzz-alpha", "fuzz-beta"} {
		room := ft.ids(tb, tokens[slug], "rooms")[0]
		if _, errs := ft.post(tokens[slug], fmt.Sprintf(`mutation { createCapacityRule(input: {roomId: %q, weekdays: [SUNDAY, MONDAY, TUESDAY, WEDNESDAY, THURSDAY, FRIDAY, SATURDAY], start: "00:00", end: "24:00", units: 1}) { revision } }`, room)); len(errs) > 0 {
			tb.Fatalf("a capacity rule for %s: %v", slug, errs)
		}
		if _, errs := ft.post(tokens[slug], `mutation { createWebhookEndpoint(input: {url: "https://93.184.215.14/hooks", events: ["schedule.changed"]}) { revision } }`); len(errs) > 0 {
			tb.Fatalf("a webhook endpoint for %s: %v", slug, errs)
		}
		// A standing place: a client made a member of the first series
		// session of a week, holding a place in it.
		week, errs := ft.post(tokens[slug], `{ days(from: "2026-12-07", to: "2026-12-14") { sessions { id series { series { id } } } } }`)
		if len(errs) > 0 {
			tb.Fatal(errs)
		}
		var session, series string
		for _, d := range path(week, "days").([]any) {
			for _, x := range path(d, "sessions").([]any) {
				if sw := path(x, "series").([]any); session == "" && len(sw) > 0 {
					session, series = path(x, "id").(string), path(sw[0], "series", "id").(string)
				}
			}
		}
		client := ft.ids(tb, tokens[slug], "clients")[0]
		for _, doc := range []string{
			fmt.Sprintf(`mutation { createMembership(input: {clientId: %q, seriesId: %q, startDate: "2026-11-01"}) { revision } }`, client, series),
			fmt.Sprintf(`mutation { createStandingBooking(input: {clientId: %q, sessionId: %q, from: "2026-12-02", waitlist: true}) { revision } }`, client, session),
		} {
			if _, errs := ft.post(tokens[slug], doc); len(errs) > 0 {
				tb.Fatalf("a standing place for %s: %v", slug, errs)
			}
		}
		staff := ft.ids(tb, tokens[slug], "staff")[0]
		if _, errs := ft.post(tokens[slug], fmt.Sprintf(`mutation { createTimeOff(input: {staffId: %q, from: "2027-01-04", to: "2027-01-05"}) { revision } }`, staff)); len(errs) > 0 {
			tb.Fatalf("a time off for %s: %v", slug, errs)
		}
		data, errs := ft.post(tokens[slug], fmt.Sprintf(`mutation { setWorkingHours(input: {staffId: %q, from: "2027-01-04", spans: []}) { workingHours { id } } }`, staff))
		if len(errs) > 0 {
			tb.Fatalf("working hours for %s: %v", slug, errs)
		}
		hours := path(data, "setWorkingHours", "workingHours", "id").(string)
		ft.pool.byKind["workingHours"] = append(ft.pool.byKind["workingHours"], hours)
		ft.pool.all = append(ft.pool.all, hours)
		for kind, list := range idKinds {
			ids := ft.ids(tb, tokens[slug], list)
			ft.pool.byKind[kind] = append(ft.pool.byKind[kind], ids...)
			ft.pool.all = append(ft.pool.all, ids...)
		}
	}
	slices.Sort(ft.pool.all)
	ft.pool.all = slices.Compact(ft.pool.all)
	return ft
}

func (ft *fuzzTarget) ids(tb testing.TB, token, list string) []string {
	data, errs := ft.post(token, listQuery(list, "id"))
	if len(errs) > 0 {
		tb.Fatalf("%s: %v", list, errs)
	}
	var out []string
	for _, r := range rows(data, list) {
		out = append(out, path(r, "id").(string))
	}
	if len(out) == 0 {
		tb.Fatalf("%s: none", list)
	}
	return out
}

// post sends a document as alpha's owner would, and returns its data and
// errors; a server fault or an answer that is not JSON fails at once.
func (ft *fuzzTarget) post(token, doc string) (map[string]any, []gqlError) {
	body, _ := json.Marshal(map[string]any{"query": doc})
	req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	ft.h.ServeHTTP(w, req)
	var out struct {
		Data   map[string]any
		Errors []gqlError
	}
	if w.Code >= http.StatusInternalServerError {
		return nil, []gqlError{{Message: fmt.Sprintf("HTTP %d: %s", w.Code, w.Body)}}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		return nil, []gqlError{{Message: fmt.Sprintf("not JSON: %v: %s", err, w.Body)}}
	}
	return out.Data, out.Errors
}

// FuzzUpdateIDs sends the writes above with ids the fuzzer picks — alpha's
// own, of the right kind or not, beta's, ids no row has, text that is no
// id — on SQLite and, when configured, PostgreSQL. Every answer is data or
// errors that carry a code the client can act on: never a server fault,
// INTERNAL or a panic in a resolver. A dry run that is refused is refused
// the same way as a write, which writes nothing.
func FuzzUpdateIDs(f *testing.F) {
	// The first of each kind is alpha's own; -1 is an id no row has.
	f.Add(uint8(0), int64(0), int64(-1), int64(0), int64(0)) // the report: updateSeries naming class time 99999
	for op := range idOps {
		for _, v := range [][4]int64{{0, -1, 0, 0}, {0, 0, -1, 0}, {0, 0, 0, -1}, {-1, 0, 0, 0}, {0, 0, 0, 0}, {0, 40, 0, 0}, {0, 0, 60, 90}, {0, -3, -5, 0}} {
			f.Add(uint8(op), v[0], v[1], v[2], v[3])
		}
	}
	var targets []*fuzzTarget
	for _, d := range modelstest.Databases(f) {
		targets = append(targets, newFuzzTarget(f, d))
	}
	f.Fuzz(func(t *testing.T, op uint8, a, b, c, d int64) {
		o := idOps[int(op)%len(idOps)]
		for _, ft := range targets {
			values := map[string]string{}
			for i, v := range []int64{a, b, c, d} {
				values[string(rune('a'+i))] = fmt.Sprintf("%q", ft.pool.pick(o.kinds[i], v))
			}
			doc := o.doc
			for k, v := range values {
				doc = strings.ReplaceAll(doc, "$"+k, v)
			}
			rev := func() any {
				data, errs := ft.post(ft.token, `{ business { revision } }`)
				if len(errs) > 0 {
					t.Fatalf("%s: the revision: %v", ft.name, errs)
				}
				return path(data, "business", "revision")
			}
			before := rev()
			var dryCode string
			for _, dry := range []bool{true, false} {
				_, errs := ft.post(ft.token, fmt.Sprintf("mutation { %s, dryRun: %v) { revision } }", doc, dry))
				if logged := ft.log.take(); strings.Contains(logged, "panic") {
					t.Fatalf("%s: %s, dryRun %v: a panic: %s", ft.name, doc, dry, logged)
				}
				code := ""
				for _, e := range errs {
					if code = e.code(); code == "" || code == "INTERNAL" {
						t.Fatalf("%s: %s, dryRun %v: an error with code %q: %s", ft.name, doc, dry, code, e.Message)
					}
				}
				if dry {
					if code == "" {
						break // it would write: the business stays as it is for the next input
					}
					dryCode = code
					continue
				}
				if code != dryCode {
					t.Errorf("%s: %s: the dry run was refused with %s, the write with %q", ft.name, doc, dryCode, code)
				}
				if after := rev(); after != before {
					t.Fatalf("%s: %s: a refused write moved the revision from %v to %v", ft.name, doc, before, after)
				}
			}
		}
	})
}
