package graph_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/koredyne/schedule/engine"
)

// awkward are strings that break code building SQL (or GraphQL, or
// iCalendar) by hand: quotes, backslashes, placeholders of either driver,
// comments, LIKE wildcards, and text outside ASCII.
var awkward = []string{
	`O'Brien`,
	`''`,
	`say "hi"`,
	`back\slash`,
	`C:\new\table\`,
	`what?`,
	`? ? ?`,
	`$1`,
	`$1::text, $2`,
	`:name @p1`,
	`-- not a comment`,
	`a /* not */ b`,
	`/*`,
	`*/`,
	`100%`,
	`under_score`,
	`%_\%`,
	`'; DROP TABLE rooms; --`,
	`") OR 1=1 --`,
	`emoji 🏊‍♀️🥊👍🏽`,
	`עברית מימין לשמאל`,
	`العربية`,
	"e\u0301 a\u0308 combining",
	"\u202Eright-to-left override\u202C",
	"zero\u200Bwidth",
	`<script>alert(1)</script> &amp;`,
	`{"json": [1]}`,
	`  leading and trailing  `,
	`;,\;\,`,
}

// freeText are awkward strings only free text (notes, reasons) may hold.
var freeText = append([]string{"tab\tand\nnew line", "\n\nblank lines\n\n", "\t"}, awkward...)

// TestAwkwardTextRoundTrips stores every awkward string through the API on
// each database, in every kind of text a business types, and reads it back
// byte for byte: values reach the database as values, never as SQL.
func TestAwkwardTextRoundTrips(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("awkward", engine.Office)
		want := map[string]map[string]string{} // kind → id → text
		put := func(kind, id, text string) {
			if want[kind] == nil {
				want[kind] = map[string]string{}
			}
			want[kind][id] = text
		}
		for i, s := range freeText {
			name := fmt.Sprintf("%d %s", i, s)
			if engine.NameText.Problem("", name) != "" {
				name = fmt.Sprintf("%d %q", i, s) // names hold no tab or line break
			}
			// The room's name goes in a literal of the query itself, the
			// rest in variables: both paths reach the same store.
			lit, _ := json.Marshal(name)
			room := path(a.ok(owner, `mutation { createRoom(input: {name: `+string(lit)+`}) { room { id name } } }`, nil), "createRoom", "room", "id").(string)
			put("room", room, name)
			staff := path(a.ok(owner, `mutation($n: String!) { createStaff(input: {name: $n}) { staff { id } } }`,
				map[string]any{"n": name}), "createStaff", "staff", "id").(string)
			put("staff", staff, name)
			act := path(a.ok(owner, `mutation($n: String!) { createActivity(input: {name: $n, color: $n}) { activity { id } } }`,
				map[string]any{"n": cut(name, 40)}), "createActivity", "activity", "id").(string)
			put("activity", act, cut(name, 40))
			ct := path(a.ok(owner, `mutation($r: ID!, $l: String) { createClassTime(input: {roomId: $r, weekday: MONDAY, start: "23:00", end: "23:30", label: $l, type: $l}) { classTime { id } } }`,
				map[string]any{"r": room, "l": name}), "createClassTime", "classTime", "id").(string)
			put("label", ct, name)
			client := path(a.ok(owner, `mutation($n: String!, $e: String) { createClient(input: {name: $n, email: $e, phone: $e}) { client { id } } }`,
				map[string]any{"n": name, "e": cut(name, 50)}), "createClient", "client", "id").(string)
			put("client", client, name)
			put("email", client, cut(name, 50))
			date := mustDate("2027-03-01") + engine.Date(i)
			oneOff := path(a.ok(owner, `mutation($r: ID!, $a: ID!, $s: ID!, $d: Date!, $n: String, $l: String) {
				createOneOff(input: {class: {activityId: $a, staffIds: [$s]}, roomId: $r, date: $d, start: "10:00", end: "11:00", label: $l, note: $n}) { oneOff { id } } }`,
				map[string]any{"r": room, "a": act, "s": staff, "d": date.String(), "n": s, "l": name}), "createOneOff", "oneOff", "id").(string)
			put("note", oneOff, s)
			put("oneOffLabel", oneOff, name)
			closure := path(a.ok(owner, `mutation($r: ID!, $d: Date!, $n: String) { createClosure(input: {from: $d, to: $d, roomIds: [$r], reason: $n}) { closure { id } } }`,
				map[string]any{"r": room, "d": (date + 100).String(), "n": s}), "createClosure", "closure", "id").(string)
			put("reason", closure, s)
			booking := path(a.ok(owner, `mutation($r: ID!, $d: Date!, $n: String) { bookRoom(input: {roomId: $r, date: $d, start: "12:00", end: "13:00", note: $n}) { roomBooking { id } } }`,
				map[string]any{"r": room, "d": date.String(), "n": s}), "bookRoom", "roomBooking", "id").(string)
			put("booking", booking, s)
		}

		got := a.ok(owner, `{
			rooms { id name } staff { id name } activities { id name color }
			classTimes { id label type } clients(first: 500) { nodes { id name email phone } }
			oneOffs(from: "2027-03-01", to: "2027-05-01") { id label note }
			closures { id reason }
			roomBookings(from: "2027-03-01", to: "2027-05-01", first: 500) { nodes { id note } }
		}`, nil)
		read := func(kind, list, field string) {
			t.Helper()
			seen := map[string]string{}
			for _, x := range rows(got, list) {
				m := x.(map[string]any)
				if v, ok := m[field].(string); ok {
					seen[m["id"].(string)] = v
				}
			}
			for id, w := range want[kind] {
				if g := seen[id]; g != w {
					t.Errorf("%s %s of %s: got %q, want %q", list, field, id, g, w)
				}
			}
		}
		read("room", "rooms", "name")
		read("staff", "staff", "name")
		read("activity", "activities", "name")
		read("activity", "activities", "color")
		read("label", "classTimes", "label")
		read("label", "classTimes", "type")
		read("client", "clients", "name")
		read("email", "clients", "email")
		read("email", "clients", "phone")
		read("note", "oneOffs", "note")
		read("oneOffLabel", "oneOffs", "label")
		read("reason", "closures", "reason")
		read("booking", "roomBookings", "note")

		// A search for each string finds its client and only clients
		// holding it: % and _ are letters to a search, not wildcards.
		searched := 0
		for id, name := range want["client"] {
			term := name[strings.IndexByte(name, ' ')+1:]
			if strings.TrimSpace(term) == "" || engine.SearchText.Problem("", term) != "" {
				continue
			}
			searched++
			found := rows(a.ok(owner, `query($q: String) { clients(search: $q, first: 500) { nodes { id name email phone } } }`, map[string]any{"q": term}), "clients")
			hit := false
			for _, x := range found {
				m := x.(map[string]any)
				hit = hit || m["id"] == id
				all := strings.ToLower(fmt.Sprint(m["name"], m["email"], m["phone"]))
				if !strings.Contains(all, strings.ToLower(strings.TrimSpace(term))) {
					t.Errorf("search %q found %q, which does not hold it", term, m["name"])
				}
			}
			if !hit {
				t.Errorf("search %q did not find the client %q (%d found)", term, name, len(found))
			}
		}
		if searched < len(awkward)-1 {
			t.Errorf("only %d searches of %d strings", searched, len(freeText))
		}
	})
}

// bad are strings no field may hold, by what is wrong with them.
var bad = map[string]string{
	"NUL":             "Ring\x00",
	"start of header": "\x01Ring",
	"bare CR":         "Ring\rA",
	"escape":          "Ring \x1b[31mred",
	"DEL":             "Ring\x7f",
	"C1 NEL":          "Ring\u0085A",
	"too long":        strings.Repeat("é", 2001),
}

// TestControlCharactersRefused sends each bad string in every text field
// of every write: each is refused with BAD_USER_INPUT naming the field, in
// the business's words, and nothing changes.
func TestControlCharactersRefused(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("hostile", engine.Gym)
		ids := a.ok(owner, `{ rooms { id } staff { id } activities { id } classTimes { id } allSeries { id plans { id } } classes { id }
			clients { nodes { id } } days(from: "2026-12-06", to: "2026-12-13") { sessions { ref { date classTime { id } class { id } } } } }`, nil)
		first := func(list string) string { return path(rows(ids, list)[0], "id").(string) }
		room, staff, act, ct, series, client := first("rooms"), first("staff"), first("activities"), first("classTimes"), first("allSeries"), first("clients")
		ref := path(ids["days"].([]any)[0], "sessions").([]any)[0].(map[string]any)["ref"].(map[string]any)
		refVars := map[string]any{"date": ref["date"], "classTimeId": path(ref, "classTime", "id"), "classId": path(ref, "class", "id")}
		before := a.dump(owner)

		writes := []struct {
			query, field string
			vars         func(s string) map[string]any
		}{
			{`mutation($s: String) { updateBusiness(input: {name: $s}) { revision } }`, "name", nil},
			{`mutation($s: String) { updateBusiness(input: {currency: $s}) { revision } }`, "currency", nil},
			{`mutation($s: String!) { createRoom(input: {name: $s}) { revision } }`, "name", nil},
			{`mutation($s: String, $id: ID!) { updateRoom(id: $id, input: {name: $s}) { revision } }`, "name", func(s string) map[string]any { return map[string]any{"s": s, "id": room} }},
			{`mutation($s: String!) { createStaff(input: {name: $s}) { revision } }`, "name", nil},
			{`mutation($s: String, $id: ID!) { updateStaff(id: $id, input: {name: $s}) { revision } }`, "name", func(s string) map[string]any { return map[string]any{"s": s, "id": staff} }},
			{`mutation($s: String!) { createActivity(input: {name: $s}) { revision } }`, "name", nil},
			{`mutation($s: String, $id: ID!) { updateActivity(id: $id, input: {color: $s}) { revision } }`, "color", func(s string) map[string]any { return map[string]any{"s": s, "id": act} }},
			{`mutation($s: String, $id: ID!) { updateClassTime(id: $id, input: {label: $s}) { revision } }`, "label", func(s string) map[string]any { return map[string]any{"s": s, "id": ct} }},
			{`mutation($s: String, $id: ID!) { updateClassTime(id: $id, input: {type: $s}) { revision } }`, "type", func(s string) map[string]any { return map[string]any{"s": s, "id": ct} }},
			{`mutation($s: String, $id: ID!) { updateSeries(id: $id, input: {name: $s}) { revision } }`, "name", func(s string) map[string]any { return map[string]any{"s": s, "id": series} }},
			{`mutation($s: String, $id: ID!) { replaceSeriesFrom(id: $id, date: "2027-01-03", name: $s) { revision } }`, "name", func(s string) map[string]any { return map[string]any{"s": s, "id": series} }},
			{`mutation($s: String, $id: ID!) { createPlan(input: {seriesId: $id, name: $s, months: 1, price: "1"}) { revision } }`, "name", func(s string) map[string]any { return map[string]any{"s": s, "id": series} }},
			{`mutation($s: String!) { createClient(input: {name: $s}) { revision } }`, "name", nil},
			{`mutation($s: String, $id: ID!) { updateClient(id: $id, input: {email: $s}) { revision } }`, "email", func(s string) map[string]any { return map[string]any{"s": s, "id": client} }},
			{`mutation($s: String, $id: ID!) { updateClient(id: $id, input: {phone: $s}) { revision } }`, "phone", func(s string) map[string]any { return map[string]any{"s": s, "id": client} }},
			{`mutation($s: String, $r: ID!, $c: ID) { createOneOff(input: {classId: $c, roomId: $r, date: "2027-02-02", start: "23:00", end: "23:30", label: $s}) { revision } }`, "label",
				func(s string) map[string]any { return map[string]any{"s": s, "r": room, "c": refVars["classId"]} }},
			{`mutation($s: String, $r: ID!, $c: ID) { createOneOff(input: {classId: $c, roomId: $r, date: "2027-02-02", start: "23:00", end: "23:30", note: $s}) { revision } }`, "note",
				func(s string) map[string]any { return map[string]any{"s": s, "r": room, "c": refVars["classId"]} }},
			{`mutation($s: String) { createClosure(input: {from: "2027-02-02", to: "2027-02-02", reason: $s}) { revision } }`, "reason", nil},
			{`mutation($s: String, $ref: SessionRefInput!) { cancelSession(ref: $ref, note: $s) { revision } }`, "note", func(s string) map[string]any { return map[string]any{"s": s, "ref": refVars} }},
			{`mutation($s: String, $ref: SessionRefInput!) { cancelSession(ref: $ref, reason: $s) { revision } }`, "reason", func(s string) map[string]any { return map[string]any{"s": s, "ref": refVars} }},
			{`mutation($s: String) { createToken(input: {role: READ_ONLY, name: $s}) { secret } }`, "name", nil},
			{`mutation($s: String, $ref: SessionRefInput!) { changeSession(ref: $ref, change: {note: $s}) { revision } }`, "note", func(s string) map[string]any { return map[string]any{"s": s, "ref": refVars} }},
			{`mutation($s: String, $r: ID!) { bookRoom(input: {roomId: $r, date: "2027-02-02", start: "23:00", end: "23:30", note: $s}) { revision } }`, "note", func(s string) map[string]any { return map[string]any{"s": s, "r": room} }},
			{`mutation($s: String) { createToken(role: READ_ONLY, name: $s) { secret } }`, "name", nil},
			{`mutation($s: String) { importCalendar(ics: "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", defaultRoom: $s) { revision } }`, "defaultRoom", nil},
			{`mutation($s: String) { importCalendar(ics: "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", defaultStaff: $s) { revision } }`, "defaultStaff", nil},
		}
		for _, w := range writes {
			for what, s := range bad {
				vars := map[string]any{"s": s}
				if w.vars != nil {
					vars = w.vars(s)
				}
				t.Run(firstLine(w.query)[9:]+"/"+what, func(t *testing.T) {
					e := a.with(t).fails(owner, "BAD_USER_INPUT", w.query, vars)
					if got := e.Extensions["field"]; got != w.field {
						t.Errorf("field %v, want %s (%s)", got, w.field, e.Message)
					}
					if !utf8.ValidString(e.Message) || strings.ContainsAny(e.Message, "\x00\r\x1b") {
						t.Errorf("the message repeats the bad text: %q", e.Message)
					}
				})
			}
		}
		// The words are the business's: a gym's staff are coaches.
		e := a.fails(owner, "BAD_USER_INPUT", `mutation($s: String!) { createStaff(input: {name: $s}) { revision } }`, map[string]any{"s": "Mar\x00co"})
		if want := "The name of a coach holds the control character U+0000 at character 4; it cannot hold control characters"; e.Message != want {
			t.Errorf("message %q, want %q", e.Message, want)
		}
		for what, s := range bad {
			if what == "too long" {
				s = strings.Repeat("x", 201)
			}
			a.fails(owner, "BAD_USER_INPUT", `query($s: String) { clients(search: $s) { totalCount } }`, map[string]any{"s": s})
		}
		if after := a.dump(owner); after != before {
			t.Errorf("a refused write changed the business:\nbefore %s\nafter  %s", before, after)
		}
	})
}

// TestBadNumbersAndIdsRefused sends numbers beyond a 32-bit column, or
// below zero where nothing is meaningful, and ids listed twice: each is
// BAD_USER_INPUT naming the field on both databases, and nothing changes.
func TestBadNumbersAndIdsRefused(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("numbers", engine.Office)
		ids := a.ok(owner, `{ rooms { id } classTimes { id } allSeries { id plans { id } } classes { id } clients { nodes { id } } }`, nil)
		first := func(list string) string { return path(rows(ids, list)[0], "id").(string) }
		room, ct, series, class, client := first("rooms"), first("classTimes"), first("allSeries"), first("classes"), first("clients")
		plan := path(ids["allSeries"].([]any)[0], "plans").([]any)[0].(map[string]any)["id"].(string)
		before := a.dump(owner)
		big := []any{1 << 31, 3000000000, int64(1) << 40, 9007199254740991}
		cases := []struct {
			name, query, field string
			vars               map[string]any
		}{
			{"room capacity", `mutation($n: Int) { createRoom(input: {name: "Big", capacity: $n}) { revision } }`, "capacity", nil},
			{"room capacity", `mutation($n: Int, $id: ID!) { updateRoom(id: $id, input: {capacity: $n}) { revision } }`, "capacity", map[string]any{"id": room}},
			{"class time capacity", `mutation($n: Int, $id: ID!) { updateClassTime(id: $id, input: {capacity: $n}) { revision } }`, "capacity", map[string]any{"id": ct}},
			{"class time units", `mutation($n: Int, $id: ID!) { updateClassTime(id: $id, input: {units: $n}) { revision } }`, "units", map[string]any{"id": ct}},
			{"class time buffer", `mutation($n: Int, $id: ID!) { updateClassTime(id: $id, input: {bufferMinutes: $n}) { revision } }`, "bufferMinutes", map[string]any{"id": ct}},
			{"series cycle", `mutation($n: Int, $id: ID!) { updateSeries(id: $id, input: {cycleWeeks: $n}) { revision } }`, "cycleWeeks", map[string]any{"id": series}},
			{"plan months", `mutation($n: Int, $id: ID!) { updatePlan(id: $id, input: {months: $n}) { revision } }`, "months", map[string]any{"id": plan}},
			{"plan sessions", `mutation($n: Int, $id: ID!) { updatePlan(id: $id, input: {sessionsPerMonth: $n}) { revision } }`, "sessionsPerMonth", map[string]any{"id": plan}},
			{"one-off capacity", `mutation($n: Int, $r: ID!, $c: ID) { createOneOff(input: {classId: $c, roomId: $r, date: "2027-02-02", start: "23:00", end: "23:30", capacity: $n}) { revision } }`, "capacity", map[string]any{"r": room, "c": class}},
			{"one-off buffer", `mutation($n: Int, $r: ID!, $c: ID) { createOneOff(input: {classId: $c, roomId: $r, date: "2027-02-02", start: "23:00", end: "23:30", bufferMinutes: $n}) { revision } }`, "bufferMinutes", map[string]any{"r": room, "c": class}},
			{"one-off units", `mutation($n: Int, $r: ID!, $c: ID) { createOneOff(input: {classId: $c, roomId: $r, date: "2027-02-02", start: "23:00", end: "23:30", units: $n}) { revision } }`, "units", map[string]any{"r": room, "c": class}},
			{"capacity rule units", `mutation($n: Int!, $r: ID!) { createCapacityRule(input: {roomId: $r, weekdays: [MONDAY], start: "08:00", end: "09:00", units: $n}) { revision } }`, "units", map[string]any{"r": room}},
			{"room booking units", `mutation($n: Int, $r: ID!) { bookRoom(input: {roomId: $r, date: "2027-02-02", start: "23:00", end: "23:30", units: $n}) { revision } }`, "units", map[string]any{"r": room}},
		}
		for _, c := range cases {
			for _, n := range append(big, -1, -(1<<31)-1) {
				vars := map[string]any{"n": n}
				for k, v := range c.vars {
					vars[k] = v
				}
				t.Run(fmt.Sprintf("%s/%v", c.name, n), func(t *testing.T) {
					e := a.with(t).fails(owner, "BAD_USER_INPUT", c.query, vars)
					if got := e.Extensions["field"]; got != c.field {
						t.Errorf("field %v, want %s (%s)", got, c.field, e.Message)
					}
				})
			}
		}
		lists := []struct {
			name, query, field string
			vars               map[string]any
		}{
			{"one-off clients", `mutation($r: ID!, $c: ID, $k: ID!) { createOneOff(input: {classId: $c, roomId: $r, date: "2027-02-02", start: "23:00", end: "23:30", clientIds: [$k, $k]}) { revision } }`,
				"clientIds", map[string]any{"r": room, "c": class, "k": client}},
			{"closure rooms", `mutation($r: ID!) { createClosure(input: {from: "2027-02-02", to: "2027-02-02", roomIds: [$r, $r]}) { revision } }`,
				"roomIds", map[string]any{"r": room}},
			{"capacity rule weekdays", `mutation($r: ID!) { createCapacityRule(input: {roomId: $r, weekdays: [MONDAY, MONDAY], start: "08:00", end: "09:00", units: 1}) { revision } }`,
				"weekdays", map[string]any{"r": room}},
		}
		for _, c := range lists {
			t.Run(c.name, func(t *testing.T) {
				e := a.with(t).fails(owner, "BAD_USER_INPUT", c.query, c.vars)
				if got := e.Extensions["field"]; got != c.field {
					t.Errorf("field %v, want %s (%s)", got, c.field, e.Message)
				}
			})
		}
		for _, v := range []map[string]any{{"u": 1 << 31, "m": 60}, {"u": 1, "m": 1 << 40}, {"u": -1, "m": 60}} {
			v["r"] = room
			a.fails(owner, "BAD_USER_INPUT", `query($r: ID!, $u: Int!, $m: Int!) { availability(roomId: $r, from: "2026-12-01T00:00:00Z", to: "2026-12-08T00:00:00Z", units: $u, minutes: $m) { start } }`, v)
		}
		if after := a.dump(owner); after != before {
			t.Errorf("a refused write changed the business:\nbefore %s\nafter  %s", before, after)
		}
	})
}

// cut keeps the first n characters of s.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func mustDate(s string) engine.Date {
	d, err := engine.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}
