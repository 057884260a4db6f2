package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// BenchmarkRefusalSuggests sends refused writes on the gym demo through
// the server — a class time moved onto the Ring's Saturday kickboxing
// (updateClassTime) and one session moved there (changeSession) — with
// the suggestions the refusal carries and without them
// (Resolver.NoSuggestions): what suggestions add to a refusal, at most
// maxTrials trials.
func BenchmarkRefusalSuggests(b *testing.B) {
	for _, d := range []struct {
		name string
		db   func(b *testing.B) (modelstest.Database, bool)
	}{
		{"sqlite", func(b *testing.B) (modelstest.Database, bool) { return modelstest.SQLite(b), true }},
		{"postgres", func(b *testing.B) (modelstest.Database, bool) { return modelstest.Postgres(b) }},
	} {
		b.Run(d.name, func(b *testing.B) {
			db, ok := d.db(b)
			if !ok {
				b.Skip("needs PostgreSQL")
			}
			ctx := context.Background()
			store := models.NewStore(db.DB, func() time.Time { return now })
			st := demo.Gym(engine.DateOf(now))
			biz, err := models.CreateBusiness(ctx, db.DB, "gym", st.Business)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
				b.Fatal(err)
			}
			tok, _, err := models.CreateToken(ctx, db.DB, biz.ID, models.Owner, "bench", "")
			if err != nil {
				b.Fatal(err)
			}
			post := func(r *graph.Resolver, query string, vars map[string]any) map[string]any {
				body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
				req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+tok)
				w := httptest.NewRecorder()
				r.Handler().ServeHTTP(w, req)
				var out map[string]any
				if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
					b.Fatal(err)
				}
				return out
			}
			with := &graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
			without := &graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), NoSuggestions: true}
			day := post(with, `{ day(date: "2026-12-05") { sessions { start room { name } ref { date classTime { id } class { id } } } } }`, nil)
			var ref map[string]any
			for _, s := range path(day, "data", "day", "sessions").([]any) {
				if path(s, "room", "name") == "Ring" && path(s, "start") == "09:00" {
					ref = map[string]any{"date": path(s, "ref", "date"), "classTimeId": path(s, "ref", "classTime", "id"), "classId": path(s, "ref", "class", "id")}
				}
			}
			writes := []struct {
				name, query string
				vars        map[string]any
			}{
				{"updateClassTime", updateClassTimeCall, map[string]any{"id": ref["classTimeId"], "input": map[string]any{"start": "11:00", "end": "12:00"}}},
				{"changeSession", changeSessionCall, map[string]any{"ref": ref, "change": map[string]any{"start": "11:00", "end": "12:00"}}},
			}
			for _, w := range writes {
				for _, mode := range []struct {
					name string
					r    *graph.Resolver
					want int
				}{{"suggestions", with, 1}, {"none", without, 0}} {
					b.Run(w.name+"/"+mode.name, func(b *testing.B) {
						for b.Loop() {
							out := post(mode.r, w.query, w.vars)
							list, _ := path(out["errors"].([]any)[0], "extensions", "suggestions").([]any)
							if (len(list) > 0) != (mode.want > 0) {
								b.Fatalf("%d suggestions: %v", len(list), out)
							}
						}
					})
				}
			}
		})
	}
}
