package graph_test

import (
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
)

// TestClassDescribedInAnyOrder: a class described inline names the class
// with that activity and that set of staff, whatever their order (the rule
// of engine.State.ClassWith); its main staff member stays its own first.
func TestClassDescribedInAnyOrder(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("harbor", engine.Gym)
		staff := a.ids(tok, "staff", "name")
		marco, sami := staff["Marco Reyes"], staff["Sami Al-Otaibi"]
		boxing := a.ids(tok, "activities", "name")["Boxing"]
		pair := a.classID(tok, "Boxing with Marco Reyes & Sami Al-Otaibi")
		classes := len(a.ids(tok, "classes", "id"))
		room := a.ids(tok, "rooms", "name")["Ring"]

		oneOff := `mutation($a: ID!, $staff: [ID!]!, $r: ID!, $start: LocalTime!, $end: LocalTime!, $dry: Boolean) {
			createOneOff(input: {class: {activityId: $a, staffIds: $staff}, roomId: $r, date: "2027-03-03", start: $start, end: $end}, dryRun: $dry) {
				oneOff { class { id name staff { id } } } } }`
		for i, order := range [][]string{{sami, marco}, {marco, sami}} {
			hour := []string{"02:00", "03:00", "04:00"}
			data := a.ok(tok, oneOff, map[string]any{"a": boxing, "staff": order, "r": room, "start": hour[i], "end": hour[i+1]})
			class := path(data, "createOneOff", "oneOff", "class")
			if got := path(class, "id"); got != pair {
				t.Errorf("staff %v: one-off of class %v (%v), want the existing class %s", order, got, path(class, "name"), pair)
			}
			if got := path(class, "staff").([]any); len(got) != 2 || path(got[0], "id") != marco {
				t.Errorf("staff %v: the class's staff are %v, want Marco Reyes still first", order, got)
			}
		}
		if got := len(a.ids(tok, "classes", "id")); got != classes {
			t.Errorf("%d classes after reusing one, want %d", got, classes)
		}

		// A staff member alone is another class; one listed twice is refused
		// and writes nothing.
		data := a.ok(tok, oneOff, map[string]any{"a": boxing, "staff": []string{sami}, "r": room, "start": "04:00", "end": "05:00", "dry": true})
		if got := path(data, "createOneOff", "oneOff", "class", "id"); got == pair {
			t.Errorf("Sami alone named the pair's class %v", got)
		}
		before := a.dump(tok)
		e := a.fails(tok, "BAD_USER_INPUT", oneOff, map[string]any{"a": boxing, "staff": []string{sami, sami}, "r": room, "start": "04:00", "end": "05:00"})
		if !strings.Contains(e.Message, "Sami Al-Otaibi twice") {
			t.Errorf("message %q", e.Message)
		}
		if a.dump(tok) != before {
			t.Error("the refused request wrote something")
		}
	})
}
