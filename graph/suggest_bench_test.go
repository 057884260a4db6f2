package graph_test

import (
	"io"
	"log/slog"
	"net/http"
	"testing"

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
	eachBenchDatabase(b, func(b *testing.B, d modelstest.Database) {
		_, tok, store, _ := gymAPI(b, d, models.Owner)
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		with := (&graph.Resolver{Store: store, Log: log}).Handler()
		without := (&graph.Resolver{Store: store, Log: log, NoSuggestions: true}).Handler()
		post := func(h http.Handler, query string, vars map[string]any) map[string]any {
			return benchAnswer(b, h, tok, query, vars)
		}
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
				h    http.Handler
				want int
			}{{"suggestions", with, 1}, {"none", without, 0}} {
				b.Run(w.name+"/"+mode.name, func(b *testing.B) {
					for b.Loop() {
						out := post(mode.h, w.query, w.vars)
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
