package graph

import (
	"testing"

	"github.com/vektah/gqlparser/v2"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/generated"
)

// TestReadsOf checks what readsOf finds an answer reads, from the
// validated document as the server runs it: the dates of days, day and
// sessions, or more as soon as a field may read more, through fragments,
// aliases and the variables of @skip and @include.
// TestCachedAnswersAreNeverStale checks the same end to end.
func TestReadsOf(t *testing.T) {
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	week := map[string]any{"from": "2026-11-29", "to": "2026-12-06"}
	from, to := engine.MustDate(2026, 11, 29), engine.MustDate(2026, 12, 6)
	dated := reads{from, to, true}
	for _, c := range []struct {
		name, query string
		vars        map[string]any
		want        reads
	}{
		{"a week", `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { date sessions { id start room { name } class { name activity { name } } staff { name } series { week series { name } } cancelled note placesTaken } } }`, week, dated},
		{"literal dates", `{ sessions(from: "2026-11-29", to: "2026-12-06") { id ref { date classTime { id } } } }`, nil, dated},
		{"a day", `{ day(date: "2026-12-01") { date sessions { id } } }`, nil, reads{engine.MustDate(2026, 12, 1), engine.MustDate(2026, 12, 2), true}},
		{"days and a day", `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { date } d: day(date: "2026-12-10") { date } }`, week, reads{from, engine.MustDate(2026, 12, 11), true}},
		{"no dates", `query($from: Date!) { days(from: $from, to: $from) { date } }`, week, reads{}},
		{"bookings", `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { sessions { id bookings { id } } } }`, week, reads{}},
		{"bookings in a fragment", `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { sessions { ...s } } } fragment s on Session { id bookings { id } }`, week, reads{}},
		{"a dated fragment", `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { sessions { ...s ... on Session { note } } } } fragment s on Session { id room { name } }`, week, dated},
		{"bookings skipped", `query($from: Date!, $to: Date!, $b: Boolean!) { days(from: $from, to: $to) { sessions { id bookings @skip(if: $b) { id } } } }`, map[string]any{"from": "2026-11-29", "to": "2026-12-06", "b": true}, dated},
		{"bookings not skipped", `query($from: Date!, $to: Date!, $b: Boolean!) { days(from: $from, to: $to) { sessions { id bookings @skip(if: $b) { id } } } }`, map[string]any{"from": "2026-11-29", "to": "2026-12-06", "b": false}, reads{}},
		{"business not included", `query($from: Date!, $to: Date!) { business @include(if: false) { revision } days(from: $from, to: $to) { date } }`, week, dated},
		{"a fragment skipped", `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { sessions { id ...b @skip(if: true) } } } fragment b on Session { bookings { id } }`, week, dated},
		{"the business", `query($from: Date!, $to: Date!) { business { revision } days(from: $from, to: $to) { date } }`, week, reads{}},
		{"a feed URL", `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { sessions { room { feedUrl } } } }`, week, reads{}},
		{"plans", `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { sessions { series { series { name plans { name } } } } } }`, week, reads{}},
		{"__typename", `query($from: Date!, $to: Date!) { __typename days(from: $from, to: $to) { __typename sessions { __typename id } } }`, week, dated},
		{"the schema", `query($from: Date!, $to: Date!) { __schema { queryType { name } } days(from: $from, to: $to) { date } }`, week, reads{}},
	} {
		doc, errs := gqlparser.LoadQuery(schema, c.query)
		if errs != nil {
			t.Fatalf("%s: %v", c.name, errs)
		}
		if got := readsOf(doc.Operations[0], c.vars); got != c.want {
			t.Errorf("%s: reads %+v, want %+v", c.name, got, c.want)
		}
	}
}
