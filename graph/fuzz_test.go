package graph_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// fuzzOperations are operations that take variables of every kind the
// schema has: dates, times, instants, ids, enums, lists and input objects.
// Writes are dry runs, so the business stays as the demo made it.
var fuzzOperations = []string{
	`query($from: Date!, $to: Date!, $f: SessionFilter) { days(from: $from, to: $to, filter: $f) { date sessions { id start } } }`,
	`query($r: ID!, $from: DateTime!, $to: DateTime!, $u: Int!, $m: Int!) { availability(roomId: $r, from: $from, to: $to, units: $u, minutes: $m) { start } }`,
	`query($s: String) { clients(search: $s) { nodes { id name } } }`,
	`mutation($in: CreateClassTimeInput!) { createClassTime(input: $in, dryRun: true) { revision } }`,
	`mutation($in: CreateOneOffInput!) { createOneOff(input: $in, dryRun: true) { revision } }`,
	`mutation($in: CreateClosureInput!) { createClosure(input: $in, dryRun: true) { revision } }`,
	`mutation($in: CreateCapacityRuleInput!) { createCapacityRule(input: $in, dryRun: true) { revision } }`,
	`mutation($ref: SessionRefInput!, $ch: SessionChangeInput!) { changeSession(ref: $ref, change: $ch, dryRun: true) { revision } }`,
	`mutation($in: UpdateBusinessInput!) { updateBusiness(input: $in, dryRun: true) { revision } }`,
	`mutation($r: Role!, $n: String) { createToken(input: {role: $r, name: $n}) { token { id } } }`,
}

// FuzzVariables sends any variables to the operations above: the answer is
// data or errors that carry a code the client can act on, never a server
// fault, an INTERNAL error or a panic.
func FuzzVariables(f *testing.F) {
	seeds := []string{
		`{"from": "2026-12-01", "to": "2026-12-08", "f": {"roomId": "1"}}`,
		`{"r": "1", "from": "2026-12-01T00:00:00Z", "to": "2026-12-02T00:00:00Z", "u": 1, "m": 30}`,
		`{"s": "a%_'\"\\\u0000"}`,
		`{"in": {"roomId": "1", "weekday": "MONDAY", "start": "06:00", "end": "07:00", "capacity": 2147483648}}`,
		`{"in": {"classId": "1", "roomId": "1", "date": "2026-12-11", "start": "10:00", "end": "11:00", "clientIds": ["1", "1"]}}`,
		`{"in": {"from": "2026-12-24", "to": "9999-12-31", "roomIds": ["1", "1"]}}`,
		`{"in": {"roomId": "1", "weekdays": ["monday"], "from": "0001-01-01", "units": -1}}`,
		`{"ref": {"date": "2026-12-06", "classTimeId": "1", "classId": "1"}, "ch": {"start": "25:00", "staffIds": []}}`,
		`{"in": {"timeZone": "Mars/Olympus", "weekStart": "WEDNESDAY"}}`,
		`{"r": "client", "n": "x"}`,
		`[]`, `null`, `{"in": null}`, `{"in": {"roomId": {"$gt": ""}}}`, `{"from": 20261201, "to": true}`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), s)
	}
	db := modelstest.SQLite(f)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	store := models.NewStore(db.DB, func() time.Time { return now })
	ctx := context.Background()
	st, _ := demo.ByKind(engine.Gym, engine.DateOf(now))
	b, err := models.CreateBusiness(ctx, db.DB, "fuzz", st.Business)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
		f.Fatal(err)
	}
	token, _, err := models.CreateToken(ctx, db.DB, b.ID, models.Manager, "fuzz", "")
	if err != nil {
		f.Fatal(err)
	}
	h := (&graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler()
	f.Fuzz(func(t *testing.T, op uint8, vars string) {
		if !json.Valid([]byte(vars)) {
			return // the transport's business, not the variables'
		}
		body, _ := json.Marshal(map[string]any{"query": fuzzOperations[int(op)%len(fuzzOperations)], "variables": json.RawMessage(vars)})
		req := httptest.NewRequest("POST", "/graphql", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= http.StatusInternalServerError {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		var out struct {
			Errors []struct {
				Message    string
				Extensions map[string]any
			}
		}
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("not JSON: %v: %s", err, w.Body)
		}
		for _, e := range out.Errors {
			if code, _ := e.Extensions["code"].(string); code == "" || code == "INTERNAL" {
				t.Errorf("variables %s: an error with code %q: %s", vars, code, e.Message)
			}
		}
	})
}
