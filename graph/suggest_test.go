package graph_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/client"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
)

// refusal is a write the guarded write refuses, whose suggestions a test
// applies: the mutation takes its input in the variable arg; undo takes a
// suggestion's write back, given its data.
type refusal struct {
	name  string
	code  string
	call  string
	arg   string
	vars  map[string]any
	undo  func(data map[string]any)
	kinds []string // kinds that must be among the suggestions
}

// applySuggestions checks a refusal's suggestions: some are given, each of
// a known kind with a message, and each, sent as the same mutation with
// its input, is saved (then undone). A dry run refuses with the same
// suggestions when it refuses at all.
func applySuggestions(t *testing.T, a *api, tok string, r refusal) {
	t.Helper()
	e := a.fails(tok, r.code, r.call, r.vars)
	list, _ := e.Extensions["suggestions"].([]any)
	if len(list) == 0 {
		t.Fatalf("%s: %s with no suggestions: %s", r.name, r.code, e.Message)
	}
	dry := copyVars(r.vars)
	dry["dryRun"] = true
	if d := a.do(tok, r.call, dry); len(d.Errors) > 0 {
		if !reflect.DeepEqual(d.Errors[0].Extensions["suggestions"], e.Extensions["suggestions"]) {
			t.Errorf("%s: the dry run suggests %v, the write %v", r.name, d.Errors[0].Extensions["suggestions"], e.Extensions["suggestions"])
		}
	}
	var kinds []string
	for _, s := range list {
		kind, _ := path(s, "kind").(string)
		kinds = append(kinds, kind)
		if !slices.Contains([]string{"SAME_ROOM_OTHER_TIME", "OTHER_ROOM", "OTHER_WEEK", "OTHER_STAFF"}, kind) {
			t.Errorf("%s: suggestion of kind %q", r.name, kind)
		}
		if msg, _ := path(s, "message").(string); msg == "" {
			t.Errorf("%s: suggestion %v has no message", r.name, s)
		}
		vars := copyVars(r.vars)
		vars[r.arg] = path(s, "input")
		res := a.do(tok, r.call, vars)
		if len(res.Errors) > 0 {
			t.Errorf("%s: suggestion %s %v refused: %s %s", r.name, kind, path(s, "input"), res.Errors[0].code(), res.Errors[0].Message)
			continue
		}
		r.undo(res.Data)
	}
	for _, k := range r.kinds {
		if !slices.Contains(kinds, k) {
			t.Errorf("%s: suggestions %v, want one %s among them", r.name, kinds, k)
		}
	}
}

func copyVars(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// sessionAt is the ref of the session in room at start on date.
func sessionAt(a *api, tok, date, room, start string) map[string]any {
	a.t.Helper()
	data := a.ok(tok, `query($d: Date!) { day(date: $d) { sessions { start room { name } ref { date classTime { id } class { id } } } } }`, map[string]any{"d": date})
	for _, s := range path(data, "day", "sessions").([]any) {
		if path(s, "room", "name") == room && path(s, "start") == start && path(s, "ref") != nil {
			return map[string]any{"date": path(s, "ref", "date"), "classTimeId": path(s, "ref", "classTime", "id"), "classId": path(s, "ref", "class", "id")}
		}
	}
	a.t.Fatalf("no session in %s at %s on %s", room, start, date)
	return nil
}

const (
	updateClassTimeCall = `mutation($id: ID!, $input: UpdateClassTimeInput!, $dryRun: Boolean) {
		updateClassTime(id: $id, input: $input, dryRun: $dryRun) { classTime { id } } }`
	createSeriesCall = `mutation($input: CreateSeriesInput!, $dryRun: Boolean) {
		createSeries(input: $input, dryRun: $dryRun) { series { id } } }`
	updateSeriesCall = `mutation($id: ID!, $input: UpdateSeriesInput!, $dryRun: Boolean) {
		updateSeries(id: $id, input: $input, dryRun: $dryRun) { series { id } } }`
	changeSessionCall = `mutation($ref: SessionRefInput!, $change: SessionChangeInput!, $dryRun: Boolean) {
		changeSession(ref: $ref, change: $change, dryRun: $dryRun) { session { id } } }`
)

// TestRefusalSuggests refuses new and moved class times, series entries
// and day changes on the gym demo, for clashes and for a coach away, and
// applies every suggestion as the real mutation through the server.
func TestRefusalSuggests(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("suggest", engine.Gym)
		ring, studio := idOf(a, tok, "rooms", "name", "Ring"), idOf(a, tok, "rooms", "name", "Studio")
		dana := idOf(a, tok, "staff", "name", "Dana Haddad")
		kickboxing := idOf(a, tok, "activities", "name", "Kickboxing")
		boxing := idOf(a, tok, "activities", "name", "Boxing")
		// Saturday 5 December: the Ring holds Boxing (Marco) 09:00–10:00
		// and Kickboxing (Dana) 11:00–12:00.
		sat := sessionAt(a, tok, "2026-12-05", "Ring", "09:00")
		boxingSat := sat["classTimeId"].(string)
		restore := func(map[string]any) {
			a.ok(tok, `mutation($ref: SessionRefInput!) { restoreSession(ref: $ref) { session { id } } }`, map[string]any{"ref": sat})
		}
		dropSeries := func(data map[string]any) {
			a.ok(tok, `mutation($id: ID!) { deleteSeries(id: $id) { id } }`, map[string]any{"id": path(data, "createSeries", "series", "id")})
		}
		marco := idOf(a, tok, "staff", "name", "Marco Reyes")
		// Every other Friday (week 1 of 2) the Studio holds boxing at noon.
		friday := func(name, activity, staff string) map[string]any {
			return map[string]any{"name": name, "anchorDate": "2026-11-29", "cycleWeeks": 2, "entries": []any{
				map[string]any{"week": 1, "classTime": map[string]any{"roomId": studio, "weekday": "FRIDAY", "start": "12:00", "end": "13:00"},
					"class": map[string]any{"activityId": activity, "staffIds": []any{staff}}},
			}}
		}
		a.ok(tok, createSeriesCall, map[string]any{"input": friday("Friday boxing", boxing, marco)})
		cases := []refusal{
			{
				name: "createSeries in the Studio's Friday boxing week", code: "CLASH", call: createSeriesCall, arg: "input",
				vars:  map[string]any{"input": friday("Friday kickboxing", kickboxing, dana)},
				undo:  dropSeries,
				kinds: []string{"OTHER_WEEK", "SAME_ROOM_OTHER_TIME", "OTHER_ROOM"},
			},
			{
				name: "updateClassTime onto the Ring's kickboxing", code: "CLASH", call: updateClassTimeCall, arg: "input",
				vars: map[string]any{"id": boxingSat, "input": map[string]any{"start": "11:00", "end": "12:00"}},
				undo: func(map[string]any) {
					a.ok(tok, updateClassTimeCall, map[string]any{"id": boxingSat, "input": map[string]any{"roomId": ring, "start": "09:00", "end": "10:00"}})
				},
				kinds: []string{"SAME_ROOM_OTHER_TIME", "OTHER_ROOM"},
			},
			{
				name: "createSeries in the Ring at 11:00", code: "CLASH", call: createSeriesCall, arg: "input",
				vars: map[string]any{"input": map[string]any{"name": "Extra boxing", "anchorDate": "2026-11-29", "entries": []any{
					map[string]any{"week": 1, "classTime": map[string]any{"roomId": ring, "weekday": "SATURDAY", "start": "11:00", "end": "12:00"},
						"class": map[string]any{"activityId": boxing, "staffIds": []any{marco}}},
				}}},
				undo:  dropSeries,
				kinds: []string{"SAME_ROOM_OTHER_TIME", "OTHER_ROOM"},
			},
			{
				name: "createSeries of Dana's, at her Ring class's time", code: "CLASH", call: createSeriesCall, arg: "input",
				vars: map[string]any{"input": map[string]any{"name": "Kickboxing twice", "anchorDate": "2026-11-29", "cycleWeeks": 2, "entries": []any{
					map[string]any{"week": 1, "classTime": map[string]any{"roomId": studio, "weekday": "SATURDAY", "start": "11:00", "end": "12:00"},
						"class": map[string]any{"activityId": kickboxing, "staffIds": []any{dana}}},
				}}},
				undo:  dropSeries,
				kinds: []string{"OTHER_STAFF", "SAME_ROOM_OTHER_TIME"},
			},
			{
				name: "changeSession into the Ring's kickboxing", code: "CLASH", call: changeSessionCall, arg: "change",
				vars: map[string]any{"ref": sat, "change": map[string]any{"start": "11:00", "end": "12:00"}},
				undo: restore, kinds: []string{"SAME_ROOM_OTHER_TIME", "OTHER_ROOM"},
			},
		}
		fridaySeries := path(a.ok(tok, `{ allSeries { id name } }`, nil), "allSeries").([]any)
		var fridayID any
		for _, s := range fridaySeries {
			if path(s, "name") == "Friday boxing" {
				fridayID = path(s, "id")
			}
		}
		fridayEntries := friday("", boxing, marco)["entries"]
		cases = append(cases, refusal{
			name: "updateSeries into the Ring's kickboxing", code: "CLASH", call: updateSeriesCall, arg: "input",
			vars: map[string]any{"id": fridayID, "input": map[string]any{"entries": []any{
				map[string]any{"week": 1, "classTime": map[string]any{"roomId": ring, "weekday": "SATURDAY", "start": "11:00", "end": "12:00"},
					"class": map[string]any{"activityId": boxing, "staffIds": []any{marco}}},
			}}},
			undo: func(map[string]any) {
				a.ok(tok, updateSeriesCall, map[string]any{"id": fridayID, "input": map[string]any{"entries": fridayEntries}})
			},
			kinds: []string{"SAME_ROOM_OTHER_TIME", "OTHER_ROOM"},
		})
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) { applySuggestions(t, a.on(t), tok, c) })
		}

		// The refusal is the one made without suggestions, but for them.
		t.Run("the refusal unchanged", func(t *testing.T) {
			plain := *a
			plain.c = client.New((&graph.Resolver{Store: a.store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), NoSuggestions: true}).Handler())
			for _, c := range cases {
				with := a.fails(tok, c.code, c.call, c.vars)
				without := plain.on(t).fails(tok, c.code, c.call, c.vars)
				if _, ok := without.Extensions["suggestions"]; ok {
					t.Errorf("%s: suggestions with NoSuggestions", c.name)
				}
				delete(with.Extensions, "suggestions")
				if !reflect.DeepEqual(with, without) {
					t.Errorf("%s: refused with suggestions as\n%+v\nwithout as\n%+v", c.name, with, without)
				}
			}
		})
		// The messages are in the language asked for; the suggestions are
		// the same.
		t.Run("in Arabic", func(t *testing.T) {
			en := a.fails(tok, "CLASH", cases[0].call, cases[0].vars)
			ar := a.doIn("ar", tok, cases[0].call, cases[0].vars)
			if len(ar.Errors) == 0 {
				t.Fatal("refused in English, saved in Arabic")
			}
			enList, _ := en.Extensions["suggestions"].([]any)
			arList, _ := ar.Errors[0].Extensions["suggestions"].([]any)
			if len(arList) != len(enList) || len(enList) == 0 {
				t.Fatalf("%d suggestions in Arabic, %d in English", len(arList), len(enList))
			}
			for i := range enList {
				enMsg, arMsg := path(enList[i], "message").(string), path(arList[i], "message").(string)
				if enMsg == arMsg || strings.Contains(arMsg, "{{") || !reflect.DeepEqual(path(enList[i], "input"), path(arList[i], "input")) {
					t.Errorf("suggestion %d: %q in Arabic, %q in English (input %v, %v)", i, arMsg, enMsg, path(arList[i], "input"), path(enList[i], "input"))
				}
			}
		})

		// Dana away on Saturday: giving her Marco's session is refused
		// with STAFF_UNAVAILABLE, a dry run too, and another coach is
		// suggested.
		a.ok(tok, `mutation($dana: ID!) { createTimeOff(input: {staffId: $dana, from: "2026-12-05", to: "2026-12-05", reason: "Away"}) { timeOff { id } } }`,
			map[string]any{"dana": dana})
		t.Run("changeSession to a coach away", func(t *testing.T) {
			applySuggestions(t, a.on(t), tok, refusal{
				name: "changeSession to Dana", code: "STAFF_UNAVAILABLE", call: changeSessionCall, arg: "change",
				vars: map[string]any{"ref": sat, "change": map[string]any{"staffIds": []any{dana}}},
				undo: restore, kinds: []string{"OTHER_STAFF"},
			})
			dry := a.fails(tok, "STAFF_UNAVAILABLE", changeSessionCall, map[string]any{"ref": sat, "change": map[string]any{"staffIds": []any{dana}}, "dryRun": true})
			if list, _ := dry.Extensions["suggestions"].([]any); len(list) == 0 {
				t.Errorf("the dry run refuses without suggestions")
			}
		})
	})
}

// TestOtherRefusalsSuggestNothing: a clash of a write that is not a class
// time, series entry or day change carries no suggestions, and bad input
// is answered as before.
func TestOtherRefusalsSuggestNothing(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("nosuggest", engine.Gym)
		ring := idOf(a, tok, "rooms", "name", "Ring")
		boxingMarco := path(sessionAt(a, tok, "2026-12-05", "Ring", "09:00"), "classId")
		e := a.fails(tok, "CLASH", `mutation($class: ID!, $ring: ID!) { createOneOff(input: {classId: $class, roomId: $ring, date: "2026-12-05", start: "11:00", end: "12:00"}) { oneOff { id } } }`,
			map[string]any{"class": boxingMarco, "ring": ring})
		if _, ok := e.Extensions["suggestions"]; ok {
			t.Errorf("createOneOff's clash suggests %v", e.Extensions["suggestions"])
		}
		bad := a.fails(tok, "BAD_USER_INPUT", updateClassTimeCall, map[string]any{"id": path(sessionAt(a, tok, "2026-12-05", "Ring", "09:00"), "classTimeId"),
			"input": map[string]any{"start": "11:00", "end": "10:00"}})
		if _, ok := bad.Extensions["suggestions"]; ok {
			t.Errorf("bad input suggests %v", bad.Extensions["suggestions"])
		}
	})
}

// TestSuggestionsOnGeneratedBusinesses moves class times onto one
// another's slots and sessions into one another's rooms and times on
// generated businesses: every suggestion of every refusal is saved by the
// real mutation.
func TestSuggestionsOnGeneratedBusinesses(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
				a := a.on(t)
				tok := a.generated(fmt.Sprint("gen-suggest-", seed), enginetest.Options{ClassTimes: 60, Seed: seed, Today: engine.DateOf(now)})
				rng := rand.New(rand.NewPCG(seed, 7))
				data := a.ok(tok, `{ classTimes { id room { id } weekday start end } allSeries { entries { classTime { id } } } }`, nil)
				used := map[string]bool{}
				for _, s := range path(data, "allSeries").([]any) {
					for _, en := range path(s, "entries").([]any) {
						used[path(en, "classTime", "id").(string)] = true
					}
				}
				var cts []any
				for _, ct := range path(data, "classTimes").([]any) {
					if used[path(ct, "id").(string)] {
						cts = append(cts, ct)
					}
				}
				refused := 0
				for tries := 0; tries < 12 && refused < 3; tries++ {
					from, onto := cts[rng.IntN(len(cts))], cts[rng.IntN(len(cts))]
					if path(from, "id") == path(onto, "id") {
						continue
					}
					id := path(from, "id")
					back := map[string]any{"roomId": path(from, "room", "id"), "weekday": path(from, "weekday"), "start": path(from, "start"), "end": path(from, "end")}
					input := map[string]any{"roomId": path(onto, "room", "id"), "weekday": path(onto, "weekday"), "start": path(onto, "start"), "end": path(onto, "end")}
					r := a.do(tok, updateClassTimeCall, map[string]any{"id": id, "input": input})
					if len(r.Errors) == 0 {
						a.ok(tok, updateClassTimeCall, map[string]any{"id": id, "input": back})
						continue
					}
					if c := r.Errors[0].code(); c != "CLASH" && c != "STAFF_UNAVAILABLE" {
						t.Fatalf("moving class time %v: %s %s", id, c, r.Errors[0].Message)
					}
					refused++
					applySuggestions(t, a, tok, refusal{name: fmt.Sprint("updateClassTime ", id), code: r.Errors[0].code(), call: updateClassTimeCall, arg: "input",
						vars: map[string]any{"id": id, "input": input},
						undo: func(map[string]any) { a.ok(tok, updateClassTimeCall, map[string]any{"id": id, "input": back}) }})
				}
				if refused == 0 {
					t.Errorf("no move was refused: the test proves nothing")
				}

				// New series whose one entry takes a class time's slot
				// with another class, every other week.
				classes := path(a.ok(tok, `{ classes { id } }`, nil), "classes").([]any)
				series := 0
				for tries := 0; tries < 12 && series < 2; tries++ {
					onto := cts[rng.IntN(len(cts))]
					class := path(classes[rng.IntN(len(classes))], "id")
					input := map[string]any{"name": fmt.Sprint("Extra ", tries), "anchorDate": "2026-11-30", "cycleWeeks": 2, "entries": []any{
						map[string]any{"week": 1, "classId": class, "classTime": map[string]any{"roomId": path(onto, "room", "id"),
							"weekday": path(onto, "weekday"), "start": path(onto, "start"), "end": path(onto, "end")}},
					}}
					drop := func(data map[string]any) {
						a.ok(tok, `mutation($id: ID!) { deleteSeries(id: $id) { id } }`, map[string]any{"id": path(data, "createSeries", "series", "id")})
					}
					r := a.do(tok, createSeriesCall, map[string]any{"input": input})
					if len(r.Errors) == 0 {
						drop(r.Data)
						continue
					}
					if c := r.Errors[0].code(); c != "CLASH" && c != "STAFF_UNAVAILABLE" {
						t.Fatalf("createSeries %v: %s %s", input, c, r.Errors[0].Message)
					}
					series++
					applySuggestions(t, a, tok, refusal{name: fmt.Sprint("createSeries ", input), code: r.Errors[0].code(), call: createSeriesCall, arg: "input",
						vars: map[string]any{"input": input}, undo: drop})
				}

				if series == 0 {
					t.Errorf("no new series was refused: the test proves nothing")
				}

				// Sessions moved into another session of the same day.
				day := a.ok(tok, `{ day(date: "2026-12-08") { sessions { start end room { id } ref { date classTime { id } class { id } } } } }`, nil)
				sessions := path(day, "day", "sessions").([]any)
				moved := 0
				for tries := 0; tries < 12 && moved < 2; tries++ {
					from, onto := sessions[rng.IntN(len(sessions))], sessions[rng.IntN(len(sessions))]
					if path(from, "ref") == nil || reflect.DeepEqual(from, onto) {
						continue
					}
					ref := map[string]any{"date": path(from, "ref", "date"), "classTimeId": path(from, "ref", "classTime", "id"), "classId": path(from, "ref", "class", "id")}
					change := map[string]any{"roomId": path(onto, "room", "id"), "start": path(onto, "start"), "end": path(onto, "end")}
					undo := func(map[string]any) {
						a.ok(tok, `mutation($ref: SessionRefInput!) { restoreSession(ref: $ref) { session { id } } }`, map[string]any{"ref": ref})
					}
					r := a.do(tok, changeSessionCall, map[string]any{"ref": ref, "change": change})
					if len(r.Errors) == 0 {
						undo(nil)
						continue
					}
					moved++
					applySuggestions(t, a, tok, refusal{name: fmt.Sprint("changeSession ", ref), code: r.Errors[0].code(), call: changeSessionCall, arg: "change",
						vars: map[string]any{"ref": ref, "change": change}, undo: undo})
				}
			})
		}
	})
}

// generated creates a business holding a generated schedule and returns an
// owner token.
func (a *api) generated(slug string, o enginetest.Options) string {
	a.t.Helper()
	ctx := context.Background()
	st := enginetest.Business(o)
	b, err := models.CreateBusiness(ctx, a.db.DB, slug, st.Business)
	if err != nil {
		a.t.Fatal(err)
	}
	if _, err := a.store.Write(ctx, b.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
		a.t.Fatal(err)
	}
	return a.token(slug, models.Owner)
}
