package graph_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph"
)

// plainShape is what a query may select of each type, to draw queries
// from: the fields the plain path answers, and some it leaves to gqlgen
// (marked), which a query then goes to gqlgen for.
var plainShape = map[string][]struct {
	name, typ string
	gqlgen    bool
}{
	"Day": {{"date", "", false}, {"sessions", "Session", false}},
	"Session": {{"id", "", false}, {"date", "", false}, {"start", "", false}, {"end", "", false},
		{"startsAt", "", false}, {"endsAt", "", false}, {"room", "Room", false}, {"class", "Class", false},
		{"staff", "Staff", false}, {"label", "", false}, {"capacity", "", false}, {"series", "SeriesWeek", false},
		{"cancelled", "", false}, {"cancelReason", "", false}, {"changed", "", false}, {"note", "", false},
		{"booked", "", true}, {"ref", "SessionRef", true}, {"oneOff", "OneOff", true}},
	"Room":       {{"id", "", false}, {"name", "", false}, {"capacity", "", false}, {"feedUrl", "", true}},
	"Class":      {{"id", "", false}, {"name", "", false}, {"activity", "Activity", false}, {"staff", "Staff", true}},
	"Activity":   {{"id", "", false}, {"name", "", false}, {"color", "", false}},
	"Staff":      {{"id", "", false}, {"name", "", false}},
	"SeriesWeek": {{"series", "Series", false}, {"week", "", false}, {"cycleWeeks", "", false}},
	"Series":     {{"id", "", false}, {"name", "", false}, {"cycleWeeks", "", true}},
	"SessionRef": {{"date", "", false}},
	"OneOff":     {{"id", "", false}},
}

// selection draws what a query selects of typ: some of its fields in any
// order, some under an alias, now and then __typename or a field that
// only gqlgen answers (one in twenty).
func selection(rng *rand.Rand, typ string) string {
	var b strings.Builder
	b.WriteString("{")
	fields := plainShape[typ]
	n := 0
	for _, i := range rng.Perm(len(fields)) {
		f := fields[i]
		if rng.IntN(3) == 0 || f.gqlgen && rng.IntN(20) != 0 {
			continue
		}
		if rng.IntN(5) == 0 {
			fmt.Fprintf(&b, " a%d: ", n)
		}
		b.WriteString(" " + f.name)
		if f.typ != "" {
			b.WriteString(" " + selection(rng, f.typ))
		}
		n++
	}
	if n == 0 || rng.IntN(8) == 0 {
		b.WriteString(" __typename")
	}
	b.WriteString(" }")
	return b.String()
}

// TestPlainAnswersAreGqlgens draws hundreds of queries of days, day and
// sessions — random fields, orders, aliases, dates and filters, a query
// now and then that the plain path leaves to gqlgen (fragments,
// directives, a filter of days, a field it does not answer, a range too
// long, an id that is not one) — over three businesses with cancelled and
// changed sessions, and compares each answer with gqlgen's, byte for
// byte. It also checks that most of them took the plain path.
func TestPlainAnswersAreGqlgens(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		toks := []string{a.business("gym", engine.Gym), a.business("clinic", engine.Clinic), a.business("office", engine.Office)}
		first := engine.MustDate(2026, 11, 2)
		rng := rand.New(rand.NewPCG(3, 5))
		series := []any{nil, "999999"} // no filter, and a series that is not there
		for _, tok := range toks {     // cancel some sessions and change others, with notes
			_, body := post(t, a.handler, tok, `{ allSeries { id } }`, nil, false)
			var all struct {
				Data struct{ AllSeries []struct{ ID string } }
			}
			if err := json.Unmarshal(body, &all); err != nil || len(all.Data.AllSeries) == 0 {
				t.Fatalf("%v: %s", err, body)
			}
			for _, s := range all.Data.AllSeries {
				series = append(series, s.ID)
			}
			_, body = post(t, a.handler, tok, `query($from: Date!, $to: Date!) { sessions(from: $from, to: $to) { id } }`,
				map[string]any{"from": first.String(), "to": first.AddDays(28).String()}, false)
			var got struct {
				Data struct{ Sessions []struct{ ID string } }
			}
			if err := json.Unmarshal(body, &got); err != nil || len(got.Data.Sessions) == 0 {
				t.Fatalf("%v: %s", err, body)
			}
			for i := range 12 {
				id := got.Data.Sessions[rng.IntN(len(got.Data.Sessions))].ID
				q := `mutation($id: SessionID!, $note: String!) { cancelSession(sessionId: $id, reason: $note) { revision } }`
				if i%2 == 1 {
					q = `mutation($id: SessionID!, $note: String!) { changeSession(sessionId: $id, change: {note: $note}) { revision } }`
				}
				if code, out := post(t, a.handler, tok, q, map[string]any{"id": id, "note": fmt.Sprintf("note \"%d\" <é> & \u2028\n", i)}, false); code != 200 || bytes.Contains(out, []byte(`"errors"`)) {
					t.Fatalf("%d %s", code, out)
				}
			}
		}
		gqlgen := (&graph.Resolver{Store: a.store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), FeedPath: "/ics/", PagePath: "/t/"}).GqlgenHandler()
		queries := 800
		if testing.Short() {
			queries = 200
		}
		plain, errs := 0, 0
		for i := range queries {
			from := first.AddDays(rng.IntN(60) - 10)
			to := from.AddDays(1 + rng.IntN(14))
			vars := map[string]any{"from": from.String(), "to": to.String(), "day": from.AddDays(rng.IntN(7)).String(), "series": series[rng.IntN(len(series))]}
			var roots []string
			for range 1 + rng.IntN(2) {
				alias := ""
				if len(roots) > 0 || rng.IntN(4) == 0 {
					alias = fmt.Sprintf("r%d: ", len(roots))
				}
				switch r := rng.IntN(40); {
				case r == 0:
					roots = append(roots, alias+`days(from: $from, to: $to, filter: {includeCancelled: false}) `+selection(rng, "Day"))
				case r == 1:
					roots = append(roots, alias+`days(from: $from, to: "2028-01-01") `+selection(rng, "Day"))
				case r == 2:
					roots = append(roots, alias+`days(from: $from, to: $to) @include(if: true) `+selection(rng, "Day"))
				case r == 3:
					roots = append(roots, alias+`days(from: $from, to: $to) { ...d }`)
				case r < 20:
					roots = append(roots, alias+`days(from: $from, to: $to) `+selection(rng, "Day"))
				case r < 26:
					roots = append(roots, alias+fmt.Sprintf(`days(from: %q, to: %q) `, from, to)+selection(rng, "Day"))
				case r < 32:
					roots = append(roots, alias+`day(date: $day) `+selection(rng, "Day"))
				case r < 36:
					roots = append(roots, alias+`sessions(from: $from, to: $to) `+selection(rng, "Session"))
				case r == 36:
					roots = append(roots, alias+`sessions(from: $from, to: $to, roomId: "1") `+selection(rng, "Session"))
				case r == 37:
					roots = append(roots, alias+`sessions(from: $from, to: $to, staffId: "x") `+selection(rng, "Session"))
				default:
					roots = append(roots, alias+`sessions(from: $from, to: $to, seriesId: $series) `+selection(rng, "Session"))
				}
			}
			body := strings.Join(roots, " ")
			var decl []string
			for _, v := range []string{"from: Date!", "to: Date!", "day: Date!", "series: ID"} {
				if strings.Contains(body, "$"+strings.Split(v, ":")[0]) {
					decl = append(decl, "$"+v)
				}
			}
			q := "query { " + body + " }"
			if decl != nil {
				q = "query(" + strings.Join(decl, ", ") + ") { " + body + " }"
			}
			if strings.Contains(q, "...d") {
				q += ` fragment d on Day { date sessions { id } }`
			}
			if graph.Plain(q, vars) {
				plain++
			}
			tok := toks[rng.IntN(len(toks))]
			code, got := post(t, a.handler, tok, q, vars, false)
			wantCode, want := post(t, gqlgen, tok, q, vars, false)
			if bytes.Contains(want, []byte(`"errors"`)) {
				errs++
			}
			if code != wantCode || !bytes.Equal(got, want) && !sameErrors(t, got, want) {
				t.Fatalf("query %d: %s\nplain path %d: %s\ngqlgen %d: %s", i, q, code, got, wantCode, want)
			}
		}
		t.Logf("%d of %d queries took the plain path; %d answered errors", plain, queries, errs)
		if plain < queries/3 {
			t.Errorf("only %d of %d queries took the plain path", plain, queries)
		}
	})
}

// sameErrors is whether two answers with errors are the same but for the
// order of their errors: gqlgen resolves root fields at once, so two that
// fail report in either order.
func sameErrors(t *testing.T, a, b []byte) bool {
	t.Helper()
	norm := func(body []byte) string {
		var v struct {
			Errors []json.RawMessage `json:"errors"`
			Data   json.RawMessage   `json:"data"`
		}
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		errs := make([]string, len(v.Errors))
		for i, e := range v.Errors {
			errs[i] = string(e)
		}
		slices.Sort(errs)
		return strings.Join(errs, "\n") + "\n" + string(v.Data)
	}
	return bytes.Contains(a, []byte(`"errors"`)) && norm(a) == norm(b)
}

// TestPlainAnswersWithinTheResponseLimit: with a small response limit, a
// week too large for it is refused as gqlgen refuses it, and one that fits
// is answered as gqlgen answers it.
func TestPlainAnswersWithinTheResponseLimit(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("gym", engine.Gym)
		r := &graph.Resolver{Store: a.store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxResponse: 8 << 10}
		plain, gqlgen := r.Handler(), r.GqlgenHandler()
		q := `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { date sessions { id start end room { name } class { name } staff { name } } } }`
		for _, days := range []int{1, 7} {
			from := engine.MustDate(2026, 11, 30)
			vars := map[string]any{"from": from.String(), "to": from.AddDays(days).String()}
			code, got := post(t, plain, tok, q, vars, false)
			wantCode, want := post(t, gqlgen, tok, q, vars, false)
			if code != wantCode || !bytes.Equal(got, want) {
				t.Fatalf("%d days: plain path %d: %s\ngqlgen %d: %s", days, code, got, wantCode, want)
			}
			if tooLarge := bytes.Contains(got, []byte("RESPONSE_TOO_LARGE")); tooLarge != (days == 7) {
				t.Errorf("%d days: %s", days, got)
			}
		}
	})
}
