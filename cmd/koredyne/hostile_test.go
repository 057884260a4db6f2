package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/models/modelstest"
)

// hostile is one request an attacker, a broken client or a careless script
// might send. Every one must be answered without a server fault (no 5xx,
// no INTERNAL) and, where the answer is known, with its status and code.
type hostile struct {
	name    string
	method  string
	path    string
	header  map[string]string
	body    string
	status  int    // 0: any status under 500
	code    string // the GraphQL error code, or "" when none is asked for
	authed  bool   // send the owner token as a bearer
	graphql bool   // a GraphQL answer: its errors must carry codes
}

// gql is a GraphQL request as the owner.
func gql(name, query string, vars map[string]any, code string) hostile {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return hostile{name: name, method: "POST", path: "/graphql", header: map[string]string{"Content-Type": "application/json"},
		body: string(body), status: 200, code: code, authed: true, graphql: true}
}

func hostileRequests() []hostile {
	nest := func(depth int) string {
		q := "name"
		for i := range depth {
			if i%2 == 0 {
				q = "series { " + q + " }"
			} else {
				q = "entries { " + q + " }"
			}
		}
		return "{ allSeries { " + q + " } }"
	}
	aliases := func(n int, field string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, " a%d: %s", i, field)
		}
		return b.String() + " }"
	}
	var rooms strings.Builder
	rooms.WriteString("mutation {")
	for i := range 2000 {
		fmt.Fprintf(&rooms, ` r%d: createRoom(input: {name: "Room %d"}, dryRun: true) { revision }`, i, i)
	}
	rooms.WriteString(" }")
	var fragments strings.Builder
	fragments.WriteString("query { business { ...f0 } }")
	for i := range 40 {
		fmt.Fprintf(&fragments, " fragment f%d on Business { name ...f%d ...f%d }", i, i+1, i+1)
	}
	fragments.WriteString(" fragment f40 on Business { name }")
	laughs := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">` +
		`<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav"><C:filter>&lol3;</C:filter></C:calendar-query>`
	xxe := `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop>&x;</D:prop></C:calendar-query>`
	report := func(from, to string) string {
		return `<?xml version="1.0"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop>` +
			`<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:time-range start="` + from + `" end="` + to + `"/>` +
			`</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`
	}
	dav := func(name, method, path, body string, status int, header ...string) hostile {
		h := map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("demo:"+bootstrapToken)), "Depth": "1"}
		for i := 0; i+1 < len(header); i += 2 {
			h[header[i]] = header[i+1]
		}
		return hostile{name: name, method: method, path: path, header: h, body: body, status: status}
	}
	json := map[string]string{"Content-Type": "application/json"}
	return []hostile{
		// Queries whose answers would exhaust memory.
		gql("lists that lead back to each other", nest(10), nil, "QUERY_TOO_COMPLEX"),
		gql("3,000 aliases", aliases(3000, "business { name }"), nil, "QUERY_TOO_COMPLEX"),
		gql("2,000 aliased writes", rooms.String(), nil, "QUERY_TOO_COMPLEX"),
		gql("fragments spreading the next twice", fragments.String(), nil, "QUERY_TOO_COMPLEX"),
		gql("nested past the depth limit", `{ days(from: "2026-12-01", to: "2026-12-02") { sessions { series { series { entries { classTime { room { name } } class { staff { name } activity { name } } } } } } } }`, nil, ""),
		// Dates that would make work grow with the range.
		gql("a closure to the year 9999", `mutation { createClosure(input: {from: "2031-01-01", to: "9999-12-31", reason: "x"}) { revision } }`, nil, "BAD_USER_INPUT"),
		gql("a capacity rule to the year 9999", `mutation { createCapacityRule(input: {roomId: "1", from: "2031-01-01", to: "9999-12-31", start: "06:00", end: "22:00", units: 1}) { revision } }`, nil, "BAD_USER_INPUT"),
		gql("days from year 1", `{ days(from: "0001-01-01", to: "0001-01-08") { date } }`, nil, "BAD_USER_INPUT"),
		gql("eight thousand years of days", `{ days(from: "1900-01-01", to: "2199-12-31") { date } }`, nil, "BAD_USER_INPUT"),
		gql("availability over two centuries", `{ availability(roomId: "1", from: "1900-01-01T00:00:00Z", to: "2199-12-31T00:00:00Z", units: 1, minutes: 30) { start } }`, nil, "BAD_USER_INPUT"),
		// Enums in variables.
		gql("a weekday in lower case", `mutation($w: Weekday!) { createClassTime(input: {roomId: "1", weekday: $w, start: "06:00", end: "07:00"}) { revision } }`,
			map[string]any{"w": "monday"}, "BAD_USER_INPUT"),
		gql("a role in lower case", `mutation($r: Role!) { createToken(input: {role: $r, name: "x"}) { secret } }`, map[string]any{"r": "client"}, "BAD_USER_INPUT"),
		gql("a role that does not exist", `mutation($r: Role!) { createAppPassword(input: {login: "eve", role: $r}) { password } }`, map[string]any{"r": "ROOT"}, "BAD_USER_INPUT"),
		// Text and numbers.
		gql("a NUL in a name", `mutation($n: String!) { createRoom(input: {name: $n}) { revision } }`, map[string]any{"n": "Ring\x00"}, "BAD_USER_INPUT"),
		gql("a carriage return in a name", `mutation($n: String!) { createRoom(input: {name: $n}) { revision } }`, map[string]any{"n": "Ring\rBEGIN:VEVENT"}, "BAD_USER_INPUT"),
		gql("a name of 100,000 characters", `mutation($n: String!) { createRoom(input: {name: $n}) { revision } }`, map[string]any{"n": strings.Repeat("x", 100000)}, "BAD_USER_INPUT"),
		gql("invalid UTF-8 (JSON reads it as U+FFFD)", "mutation { createStaff(input: {name: \"\xff\xfe\"}, dryRun: true) { revision } }", nil, ""),
		gql("a capacity past 2^31", `mutation { createRoom(input: {name: "Big", capacity: 3000000000}) { revision } }`, nil, ""),
		gql("a negative capacity", `mutation { createRoom(input: {name: "Small", capacity: -1}) { revision } }`, nil, "BAD_USER_INPUT"),
		gql("one client twice", `mutation { createOneOff(input: {classId: "1", roomId: "1", date: "2026-12-11", start: "10:00", end: "11:00", clientIds: ["1", "1"]}) { revision } }`, nil, "BAD_USER_INPUT"),
		gql("an id that is no number", `{ allSeries { id } clashes { provenUntil } room: rooms { id } }`, nil, ""),
		gql("SQL in a search", `{ clients(search: "'; DROP TABLE clients; --") { nodes { id } } }`, nil, ""),
		// Malformed requests.
		{name: "not JSON", method: "POST", path: "/graphql", header: json, body: "{query", status: 400, authed: true, graphql: true},
		{name: "an empty body", method: "POST", path: "/graphql", header: json, body: "", status: 400, authed: true, graphql: true},
		{name: "a batch", method: "POST", path: "/graphql", header: json, body: `[{"query": "{ business { name } }"}]`, status: 400, authed: true, graphql: true},
		{name: "a query that is a number", method: "POST", path: "/graphql", header: json, body: `{"query": 5}`, status: 400, authed: true, graphql: true},
		{name: "variables that are a list", method: "POST", path: "/graphql", header: json, body: `{"query": "{ business { name } }", "variables": [1]}`, status: 400, authed: true, graphql: true},
		{name: "plain text", method: "POST", path: "/graphql", header: map[string]string{"Content-Type": "text/plain"}, body: `{"query": "{ business { name } }"}`, authed: true, graphql: true},
		{name: "a mutation over GET", method: "GET", path: "/graphql?query=" + strings.ReplaceAll("mutation{createRoom(input:{name:\"X\"}){revision}}", " ", ""), authed: true, graphql: true},
		{name: "a body over the limit", method: "POST", path: "/graphql", header: json, body: `{"query": "` + strings.Repeat(" ", 11<<20) + `{ business { name } }"}`, status: 413, authed: true, graphql: true},
		{name: "a token that is not one", method: "POST", path: "/graphql", header: map[string]string{"Content-Type": "application/json", "Authorization": "Bearer kd_nope"},
			body: `{"query": "{ business { name } }"}`, status: 401, code: "UNAUTHENTICATED", graphql: true},
		// The calendar gateway and the pages.
		dav("a NUL in the Basic user", "PROPFIND", "/caldav/", "", 401, "Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("demo\x00:"+bootstrapToken))),
		dav("billion laughs", "REPORT", "/caldav/demo/calendars/all/", laughs, 0),
		dav("an external entity", "REPORT", "/caldav/demo/calendars/all/", xxe, 0),
		dav("a time range of a century", "REPORT", "/caldav/demo/calendars/all/", report("20000101T000000Z", "21000101T000000Z"), 0),
		dav("a time range that is not one", "REPORT", "/caldav/demo/calendars/all/", report("yesterday", "tomorrow"), 0),
		dav("XML that is not XML", "PROPFIND", "/caldav/demo/calendars/", "<D:propfind", 0),
		dav("a write", "PUT", "/caldav/demo/calendars/all/x.ics", "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", 403),
		dav("a calendar made", "MKCALENDAR", "/caldav/demo/calendars/new/", "", 403),
		dav("a path that climbs", "GET", "/caldav/demo/calendars/../../../etc/passwd", "", 0),
		{name: "a NUL as a timetable token", method: "GET", path: "/t/%00", status: 404},
		{name: "a NUL as a feed token", method: "GET", path: "/ics/%00.ics", status: 404},
		{name: "a feed token of 10,000 characters", method: "GET", path: "/ics/" + strings.Repeat("a", 10000) + ".ics", status: 404},
	}
}

// TestHostileRequests sends every hostile request to a real server process
// on its default settings, on SQLite and PostgreSQL: no answer is a server
// fault, none is INTERNAL, a refused request changes no data, and the
// server's memory stays bounded. Then 80 requests with 80 made-up tokens:
// the failed sign-ins are limited per address, not let through.
func TestHostileRequests(t *testing.T) {
	bin := buildMain(t)
	for _, db := range modelstest.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			env := append(os.Environ(), "KOREDYNE_BOOTSTRAP_TOKEN="+bootstrapToken)
			args := []string{"serve", "--addr", "127.0.0.1:0"}
			if db.Name == "postgres" {
				env = append(env, "DATABASE_URL="+db.DSN)
			} else {
				args = append(args, "--data", filepath.Dir(db.DSN))
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = env
			stdout, _ := cmd.StdoutPipe()
			var logs bytes.Buffer
			cmd.Stderr = &logs
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				cmd.Process.Signal(os.Interrupt)
				cmd.Wait()
				if strings.Contains(logs.String(), "panic") {
					t.Errorf("the server log holds a panic:\n%s", logs.String())
				}
			}()
			base := waitListening(t, stdout)
			before := fingerprint(t, base)
			rssBefore := rss(t, cmd.Process.Pid)
			for _, h := range hostileRequests() {
				// A client that paces itself, as the rate limit asks.
				time.Sleep(60 * time.Millisecond)
				status, body := sendHostile(t, base, h)
				if status >= 500 {
					t.Errorf("%s: status %d: %.300s", h.name, status, body)
					continue
				}
				if h.status != 0 && status != h.status {
					t.Errorf("%s: status %d, want %d: %.300s", h.name, status, h.status, body)
				}
				if !h.graphql || status == http.StatusTooManyRequests {
					continue
				}
				var out struct {
					Errors []struct {
						Message    string
						Extensions map[string]any
					}
				}
				if err := json.Unmarshal([]byte(body), &out); err != nil {
					t.Errorf("%s: the answer is not GraphQL's JSON: %v: %.300s", h.name, err, body)
					continue
				}
				for _, e := range out.Errors {
					code, _ := e.Extensions["code"].(string)
					if code == "" || code == "INTERNAL" {
						t.Errorf("%s: an error with code %q: %s", h.name, code, e.Message)
					}
				}
				if h.code != "" && (len(out.Errors) == 0 || out.Errors[0].Extensions["code"] != h.code) {
					t.Errorf("%s: got %.300s, want code %s", h.name, body, h.code)
				}
			}
			if after := fingerprint(t, base); after != before {
				t.Errorf("refused requests changed the data:\nbefore %s\nafter  %s", before, after)
			}
			rssAfter := rss(t, cmd.Process.Pid)
			t.Logf("resident memory: %d MiB before, %d MiB after", rssBefore>>20, rssAfter>>20)
			if rssAfter > rssBefore+200<<20 {
				t.Errorf("resident memory grew from %d MiB to %d MiB", rssBefore>>20, rssAfter>>20)
			}

			// Made-up tokens are limited per address, whatever each says.
			limited := 0
			for i := range 80 {
				status, body := sendHostile(t, base, hostile{method: "POST", path: "/graphql",
					header: map[string]string{"Content-Type": "application/json", "Authorization": fmt.Sprintf("Bearer kd_guess_%d", i)},
					body:   `{"query": "{ business { name } }"}`})
				switch status {
				case http.StatusTooManyRequests:
					limited++
				case http.StatusUnauthorized:
				default:
					t.Errorf("made-up token %d: status %d: %.200s", i, status, body)
				}
			}
			if limited < 40 {
				t.Errorf("%d of 80 made-up tokens were limited, want most", limited)
			}
			// The real token still gets through: the guesses did not lock it out.
			if status, body := sendHostile(t, base, gql("the owner after the guesses", `{ business { name } }`, nil, "")); status != 200 {
				t.Errorf("the owner after the guesses: %d %.200s", status, body)
			}
		})
	}
}

// sendHostile sends one hostile request and returns its status and body.
func sendHostile(t *testing.T, base string, h hostile) (int, string) {
	t.Helper()
	var headers []string
	for k, v := range h.header {
		headers = append(headers, k, v)
	}
	if h.authed {
		headers = append(headers, "Authorization", "Bearer "+bootstrapToken)
	}
	resp, body := hit(t, h.method, base+h.path, h.body, headers...)
	return resp.StatusCode, body
}

// fingerprint is everything a write could change, as the owner reads it.
func fingerprint(t *testing.T, base string) string {
	t.Helper()
	status, body := sendHostile(t, base, gql("fingerprint", `{ business { revision } rooms { id name capacity } staff { id name }
		classTimes { id } allSeries { id } clients(first: 500) { nodes { id } } tokens { nodes { id role } } appPasswords { nodes { id role } } }`, nil, ""))
	if status != 200 || strings.Contains(body, `"errors"`) {
		t.Fatalf("fingerprint: %d %.300s", status, body)
	}
	return body
}

// rss is the resident memory of a process, in bytes.
func rss(t *testing.T, pid int) int64 {
	t.Helper()
	return memoryStatus(t, pid, "VmRSS")
}
