package main

// Interoperability tests with real third-party calendar clients: each starts
// the whole server in this process and runs a client program against it —
// python-caldav, vdirsyncer, Mozilla's ical.js — comparing what the client
// understood with what the server's own GraphQL API says.
//
// A test whose client is not installed skips, except under CI=true: .ci/run
// installs every client, so there a missing one is a failure.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-ical"

	"github.com/koredyne/schedule/models/modelstest/need"
)

// clientTimeout bounds one run of a client program.
const clientTimeout = 3 * time.Minute

// needClient skips the test for want of the client what (how installs
// it), or fails it under CI; why is how it was found missing.
func needClient(t *testing.T, what, how string, why ...any) {
	t.Helper()
	if len(why) > 0 {
		t.Log(why...)
	}
	need.Missing(t, what, how)
}

// lookClient returns the path of a client program, or skips (fails in CI).
func lookClient(t *testing.T, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		needClient(t, filepath.Base(name), install, err)
	}
	return p
}

// runClient runs a client program and returns its stdout and stderr; a
// failure shows both.
func runClient(t *testing.T, stdin string, name string, args ...string) (stdout []byte, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var errs strings.Builder
	cmd.Stderr = &errs
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("%s %v: no answer in %v\nstderr:\n%s", filepath.Base(name), args, clientTimeout, errs.String())
	}
	if err != nil {
		t.Fatalf("%s %v: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(name), args, err, out, errs.String())
	}
	return out, errs.String()
}

// wiretap stands between a client program and the server, on loopback,
// and records what each request asked for and how it was answered, passing
// the bytes through as they are (it adds no Accept-Encoding of its own and
// undoes no gzip): to see that a client connects as it really does, with
// compression, and what it gets.
type wiretap struct {
	url string

	mu   sync.Mutex
	seen []exchange
}

// exchange is one request through a wiretap.
type exchange struct {
	method, path   string
	acceptEncoding string
	status         int
	contentType    string
	gzipped        bool
}

func (e exchange) String() string {
	return fmt.Sprintf("%s %s (Accept-Encoding %q): %d %q gzipped %v", e.method, e.path, e.acceptEncoding, e.status, e.contentType, e.gzipped)
}

// tap starts a wiretap in front of the server at target.
func tap(t *testing.T, target string) *wiretap {
	t.Helper()
	to, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	w := &wiretap{}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(to)
			r.Out.Host = r.In.Host // the URLs the server writes name the tap
		},
		Transport: &http.Transport{DisableCompression: true},
		ModifyResponse: func(resp *http.Response) error {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.seen = append(w.seen, exchange{
				method: resp.Request.Method, path: resp.Request.URL.Path,
				acceptEncoding: resp.Request.Header.Get("Accept-Encoding"),
				status:         resp.StatusCode, contentType: resp.Header.Get("Content-Type"),
				gzipped: resp.Header.Get("Content-Encoding") == "gzip",
			})
			return nil
		},
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	w.url = srv.URL
	return w
}

// checkGzip checks that every request through the tap asked for gzip, that
// every multistatus said it is XML, and that some answers came gzipped.
func (w *wiretap) checkGzip(t *testing.T, client string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	zipped := 0
	for _, e := range w.seen {
		if !strings.Contains(strings.ToLower(e.acceptEncoding), "gzip") {
			t.Errorf("%s asked without gzip: %v", client, e)
		}
		if e.status == http.StatusMultiStatus && e.contentType != "application/xml; charset=utf-8" {
			t.Errorf("%s got a multistatus that does not say it is XML: %v", client, e)
		}
		if e.gzipped {
			zipped++
		}
	}
	if len(w.seen) == 0 || zipped == 0 {
		t.Errorf("%s: %d of %d answers came gzipped, want some", client, zipped, len(w.seen))
	}
	t.Logf("%s sent %d requests, each asking for gzip; %d answers came gzipped", client, len(w.seen), zipped)
}

// startDemo starts the server on a fresh SQLite database in a temp dir; the
// first start seeds business "demo" with the gym demo and bootstrapToken.
func startDemo(t *testing.T, args ...string) *server {
	t.Helper()
	s := startMain(t, map[string]string{"KOREDYNE_BOOTSTRAP_TOKEN": bootstrapToken}, append([]string{"--data", t.TempDir()}, args...)...)
	t.Cleanup(s.stop)
	return s
}

// query runs a GraphQL operation with the bootstrap token, fails the test on
// errors and decodes data into out.
func query(t *testing.T, s *server, q string, vars map[string]any, out any) {
	t.Helper()
	data, errs := post(t, s.url, bootstrapToken, q, vars)
	if len(errs) > 0 {
		t.Fatalf("GraphQL errors %v for\n%s", errs, q)
	}
	decodeData(t, data, out)
}

func decodeData(t *testing.T, data map[string]any, out any) {
	t.Helper()
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

type business struct {
	Name      string
	TimeZone  string
	WeekStart string
	FeedURL   string
}

// location is the business's time zone.
func (b business) location(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(b.TimeZone)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func businessOf(t *testing.T, s *server) business {
	t.Helper()
	var out struct{ Business business }
	query(t, s, `{ business { name timeZone weekStart feedUrl } }`, nil, &out)
	return out.Business
}

type session struct {
	ID       string
	Date     string
	StartsAt time.Time
	EndsAt   time.Time
	Room     struct{ ID string }
	Staff    []struct{ ID string }
	Ref      *struct {
		Date      string
		ClassTime struct{ ID string }
		Class     struct{ ID string }
	}
}

const sessionFields = `id date startsAt endsAt room { id } staff { id } ref { date classTime { id } class { id } }`

// uid is the UID the gateway gives a session of business "demo": its id
// with / as - ("s/2026-12-08/12/7" → "s-2026-12-08-12-7@demo.koredyne").
func (s session) uid() string { return strings.ReplaceAll(s.ID, "/", "-") + "@demo.koredyne" }

// civil dates are time.Times at midnight UTC, written YYYY-MM-DD.
const dateLayout = "2006-01-02"

func civil(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// sessionsOn lists the sessions of days from..to (exclusive), cancelled
// ones too (calendars publish them as STATUS:CANCELLED), asking GraphQL
// `days` at most 400 days at a time. filter narrows to a staff member or
// room, as in SessionFilter.
func sessionsOn(t *testing.T, s *server, from, to time.Time, filter map[string]any) []session {
	t.Helper()
	f := map[string]any{"includeCancelled": true}
	for k, v := range filter {
		f[k] = v
	}
	var all []session
	for start := from; start.Before(to); start = start.AddDate(0, 0, 400) {
		end := start.AddDate(0, 0, 400)
		if end.After(to) {
			end = to
		}
		var out struct {
			Days []struct{ Sessions []session }
		}
		query(t, s, `query($from: Date!, $to: Date!, $filter: SessionFilter) {
			days(from: $from, to: $to, filter: $filter) { sessions { `+sessionFields+` } } }`,
			map[string]any{"from": start.Format(dateLayout), "to": end.Format(dateLayout), "filter": f}, &out)
		for _, d := range out.Days {
			all = append(all, d.Sessions...)
		}
	}
	return all
}

// timeOffsOn is the UIDs of the time off of days from..to (to excluded),
// by the calendar that holds them: a coach's own calendar shows their time
// off as busy time.
func timeOffsOn(t *testing.T, s *server, from, to time.Time) map[string][]string {
	t.Helper()
	var out struct {
		TimeOffs []struct {
			ID    string
			Staff struct{ ID string }
		}
	}
	query(t, s, `query($from: Date, $to: Date) { timeOffs(from: $from, to: $to) { id staff { id } } }`,
		map[string]any{"from": from.Format(dateLayout), "to": to.AddDate(0, 0, -1).Format(dateLayout)}, &out)
	uids := map[string][]string{}
	for _, o := range out.TimeOffs {
		uids["staff-"+o.Staff.ID] = append(uids["staff-"+o.Staff.ID], "t-"+o.ID+"@demo.koredyne")
	}
	return uids
}

// listingWindow is the days calendars list, as the gateway computes them:
// back weeks before the week holding today, that week, and ahead weeks
// after it.
func listingWindow(t *testing.T, b business, back, ahead int) (from, to time.Time) {
	t.Helper()
	today := civil(time.Now().In(b.location(t)))
	first := -1
	for d := time.Sunday; d <= time.Saturday; d++ {
		if strings.EqualFold(d.String(), b.WeekStart) {
			first = int(d)
		}
	}
	if first < 0 {
		t.Fatalf("week start %q", b.WeekStart)
	}
	week := today.AddDate(0, 0, -((int(today.Weekday()) - first + 7) % 7))
	return week.AddDate(0, 0, -7*back), week.AddDate(0, 0, 7*(ahead+1))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// diffSets says what got has that want lacks and the reverse, or "".
func diffSets(got, want []string) string {
	var extra, missing []string
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	if len(extra) == 0 && len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("got %d, want %d; extra %v; missing %v", len(got), len(want), extra, missing)
}

// calendarIDs are the calendar collections the gateway should publish for
// the business: "all", one per staff member, one per room.
func calendarIDs(t *testing.T, s *server) (ids []string, names map[string]string) {
	t.Helper()
	var out struct {
		Staff []struct{ ID, Name string }
		Rooms []struct{ ID, Name string }
	}
	query(t, s, `{ staff { id name } rooms { id name } }`, nil, &out)
	names = map[string]string{}
	ids = []string{"all"}
	for _, p := range out.Staff {
		ids = append(ids, "staff-"+p.ID)
		names["staff-"+p.ID] = p.Name
	}
	for _, r := range out.Rooms {
		ids = append(ids, "room-"+r.ID)
		names["room-"+r.ID] = r.Name
	}
	return ids, names
}

// TestPythonCaldavDiscovery runs python-caldav (Debian's python3-caldav),
// which asks for gzip as requests does, through discovery — from /caldav/ and from /.well-known/caldav — and a
// time-range search of next week on the business calendar, which must find
// exactly the sessions GraphQL gives for that week; the same search with
// expand=True (CALDAV:expand, RFC 4791 §9.6.5) finds them too, each at its
// instant and in UTC, without a VTIMEZONE.
func TestPythonCaldavDiscovery(t *testing.T) {
	python := lookClient(t, "/usr/bin/python3", "apt-get install python3")
	// -I: Debian's packages only, not a user's site-packages or the working
	// directory (from the repository root, the Go package ./caldav imports
	// as a namespace package named caldav).
	if out, err := exec.Command(python, "-I", "-c", "import caldav").CombinedOutput(); err != nil {
		needClient(t, "python3-caldav", "apt-get install python3-caldav", err, string(out))
	}
	s := startDemo(t)
	b := businessOf(t, s)
	loc := b.location(t)
	ids, names := calendarIDs(t, s)

	// Next week (where a window of this week alone ends), and the sessions
	// GraphQL says overlap it (RFC 4791 §9.9: those that start before its
	// end and end after its start).
	_, week := listingWindow(t, b, 0, 0)
	start := time.Date(week.Year(), week.Month(), week.Day(), 0, 0, 0, 0, loc)
	end := start.AddDate(0, 0, 7)
	var want []string
	startsAt := map[string]time.Time{}
	for _, ss := range sessionsOn(t, s, week.AddDate(0, 0, -1), week.AddDate(0, 0, 8), nil) {
		if ss.StartsAt.Before(end) && ss.EndsAt.After(start) {
			want = append(want, ss.uid())
			startsAt[ss.uid()] = ss.StartsAt
		}
	}
	slices.Sort(want)
	if len(want) == 0 {
		t.Fatalf("GraphQL lists no sessions in the week of %s", week.Format(dateLayout))
	}

	for name, entry := range map[string]string{"root": "/caldav/", "well-known": "/.well-known/caldav"} {
		t.Run(name, func(t *testing.T) {
			w := tap(t, s.url)
			out, _ := runClient(t, "", python, "-I", filepath.Join("testdata", "clients", "discover.py"),
				w.url+entry, "demo", bootstrapToken, start.Format(time.RFC3339), end.Format(time.RFC3339))
			w.checkGzip(t, "python-caldav")
			var got struct {
				Principal string
				Calendars []struct{ Name, URL string }
				Searched  string
				Count     int
				UIDs      []string
				Expanded  []struct {
					UID, Start     string
					UTC, VTimezone bool
				}
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("decoding discover.py's output: %v\n%s", err, out)
			}
			if p := urlPath(t, got.Principal); p != "/caldav/demo/" {
				t.Errorf("principal %s, want /caldav/demo/", p)
			}
			if p := urlPath(t, got.Searched); p != "/caldav/demo/calendars/all/" {
				t.Errorf("searched %s, want the business calendar /caldav/demo/calendars/all/", p)
			}
			var paths []string
			for _, c := range got.Calendars {
				p := urlPath(t, c.URL)
				paths = append(paths, p)
				id := strings.TrimSuffix(strings.TrimPrefix(p, "/caldav/demo/calendars/"), "/")
				switch {
				case id == "all" && c.Name != b.Name:
					t.Errorf("calendar %s is named %q, want %q", p, c.Name, b.Name)
				case id != "all" && !strings.HasPrefix(c.Name, names[id]+" · "):
					t.Errorf("calendar %s is named %q, want %q first", p, c.Name, names[id])
				}
			}
			var wantPaths []string
			for _, id := range ids {
				wantPaths = append(wantPaths, "/caldav/demo/calendars/"+id+"/")
			}
			if d := diffSets(paths, wantPaths); d != "" {
				t.Errorf("calendars: %s", d)
			}
			if got.Count != len(want) || !slices.Equal(got.UIDs, want) {
				t.Errorf("search of %s..%s found %d events (%d UIDs), GraphQL has %d sessions: %s",
					start.Format(time.RFC3339), end.Format(time.RFC3339), got.Count, len(got.UIDs), len(want), diffSets(got.UIDs, want))
			}
			var expanded []string
			for _, e := range got.Expanded {
				expanded = append(expanded, e.UID)
				at, err := time.Parse(time.RFC3339, e.Start)
				if !e.UTC || e.VTimezone || err != nil || !at.Equal(startsAt[e.UID]) {
					t.Errorf("expanded %s: start %s (%v), UTC times %v, VTIMEZONE %v; want %s in UTC and no VTIMEZONE",
						e.UID, e.Start, err, e.UTC, e.VTimezone, startsAt[e.UID].UTC().Format(time.RFC3339))
				}
			}
			if !slices.Equal(expanded, want) {
				t.Errorf("the expanded search found %d events, GraphQL has %d sessions: %s", len(expanded), len(want), diffSets(expanded, want))
			}
		})
	}
}

func urlPath(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("a URL from the client: %v", err)
	}
	return u.Path
}

// TestVdirsyncerSync mirrors every calendar with vdirsyncer (read-only
// CalDAV → a filesystem storage; it asks for gzip as aiohttp does): each
// calendar becomes a folder with one
// .ics file per session; a second sync changes nothing; after one session
// changes, a sync rewrites exactly that session's files — in "all", its
// staff members' calendars and its room's — and nothing else.
func TestVdirsyncerSync(t *testing.T) {
	vdirsyncer := lookClient(t, "vdirsyncer", "apt-get install vdirsyncer")
	// A short window keeps the mirror small: the sync logic is the same
	// for 5 weeks as for 61.
	const back, ahead = 1, 3
	s := startDemo(t, "--calendar-weeks-back", fmt.Sprint(back), "--calendar-weeks-ahead", fmt.Sprint(ahead))
	b := businessOf(t, s)
	ids, _ := calendarIDs(t, s)

	dir := t.TempDir()
	local := filepath.Join(dir, "calendars")
	w := tap(t, s.url)
	config := vdirsyncerConfig(t, dir, w.url, "demo", bootstrapToken)
	vdir := func(args ...string) string {
		t.Helper()
		// discover asks once per collection whether to create it locally.
		out, log := runClient(t, strings.Repeat("y\n", 100), vdirsyncer, append([]string{"-v", "INFO", "-c", config}, args...)...)
		return string(out) + log // vdirsyncer logs to stderr
	}
	vdir("discover")
	log := vdir("sync")

	// Every calendar is a folder holding exactly its sessions, one file each.
	from, to := listingWindow(t, b, back, ahead)
	first := mirror(t, local)
	var folders []string
	for f := range first {
		folders = append(folders, f)
	}
	if d := diffSets(folders, ids); d != "" {
		t.Fatalf("folders: %s\nvdirsyncer sync:\n%s", d, log)
	}
	away := timeOffsOn(t, s, from, to)
	for _, id := range ids {
		var filter map[string]any
		if kind, n, ok := strings.Cut(id, "-"); ok {
			filter = map[string]any{kind + "Id": n}
		}
		var want []string
		for _, ss := range sessionsOn(t, s, from, to, filter) {
			want = append(want, ss.uid())
		}
		want = append(want, away[id]...)
		if d := diffSets(sortedKeys(first[id]), want); d != "" {
			t.Errorf("%s holds other sessions than GraphQL lists for %s..%s: %s", id, from.Format(dateLayout), to.Format(dateLayout), d)
		}
	}
	if t.Failed() {
		t.Fatalf("vdirsyncer sync:\n%s", log)
	}
	w.checkGzip(t, "vdirsyncer")
	files := 0
	for _, f := range first {
		files += len(f)
	}
	t.Logf("vdirsyncer mirrored %d calendars, %d files, for %s..%s", len(first), files, from.Format(dateLayout), to.Format(dateLayout))

	// Nothing changed on the server: nothing changes here.
	log = vdir("sync")
	if d := changes(first, mirror(t, local)); d != nil {
		t.Fatalf("a sync with nothing changed on the server changed %v\nvdirsyncer sync:\n%s", d, log)
	}

	// One session changes: its files, and only those, change.
	moved := moveSession(t, s, civil(time.Now().In(b.location(t))).AddDate(0, 0, 7))
	log = vdir("sync")
	second := mirror(t, local)
	want := []string{"all/" + moved.uid(), "room-" + moved.Room.ID + "/" + moved.uid()}
	for _, p := range moved.Staff {
		want = append(want, "staff-"+p.ID+"/"+moved.uid())
	}
	slices.Sort(want)
	if got := changes(first, second); !slices.Equal(got, want) {
		t.Fatalf("after changing %s, the sync changed %v, want %v\nvdirsyncer sync:\n%s", moved.ID, got, want, log)
	}
	for _, change := range want {
		id, _, _ := strings.Cut(change, "/")
		f := second[id][moved.uid()]
		if got := eventStart(t, f); !got.Equal(moved.StartsAt) {
			t.Errorf("%s/%s starts %v after the sync, want %v", id, f.name, got, moved.StartsAt)
		}
	}
}

// mirrored is one file of vdirsyncer's filesystem storage.
type mirrored struct {
	name string // vdirsyncer's: a UUID when the UID is not a safe file name
	body string
	mod  time.Time
}

// mirror reads a vdirsyncer filesystem storage: folder → UID → file. A
// folder holding two files of one UID fails the test.
func mirror(t *testing.T, root string) map[string]map[string]mirrored {
	t.Helper()
	folders, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]mirrored{}
	for _, folder := range folders {
		if !folder.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, folder.Name()))
		if err != nil {
			t.Fatal(err)
		}
		byUID := map[string]mirrored{}
		for _, file := range files {
			if filepath.Ext(file.Name()) != ".ics" {
				continue // vdirsyncer's own metadata (displayname, color)
			}
			body, err := os.ReadFile(filepath.Join(root, folder.Name(), file.Name()))
			if err != nil {
				t.Fatal(err)
			}
			info, err := file.Info()
			if err != nil {
				t.Fatal(err)
			}
			f := mirrored{name: file.Name(), body: string(body), mod: info.ModTime()}
			uid := eventUID(t, f)
			if other, ok := byUID[uid]; ok {
				t.Errorf("%s holds %s twice: %s and %s", folder.Name(), uid, other.name, f.name)
			}
			byUID[uid] = f
		}
		out[folder.Name()] = byUID
	}
	return out
}

// changes lists "folder/UID" of every file added, removed or changed in
// bytes or modification time.
func changes(before, after map[string]map[string]mirrored) []string {
	var out []string
	for _, folder := range sortedKeys(union(before, after)) {
		for _, uid := range sortedKeys(union(before[folder], after[folder])) {
			a, inA := before[folder][uid]
			b, inB := after[folder][uid]
			if inA != inB || a.name != b.name || a.body != b.body || !a.mod.Equal(b.mod) {
				out = append(out, folder+"/"+uid)
			}
		}
	}
	return out
}

func union[V any](a, b map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func parseEvent(t *testing.T, f mirrored) ical.Event {
	t.Helper()
	cal, err := ical.NewDecoder(strings.NewReader(f.body)).Decode()
	if err != nil {
		t.Fatalf("%s: %v", f.name, err)
	}
	events := cal.Events()
	if len(events) != 1 {
		t.Fatalf("%s holds %d VEVENTs, want 1", f.name, len(events))
	}
	return events[0]
}

func eventUID(t *testing.T, f mirrored) string {
	t.Helper()
	ev := parseEvent(t, f)
	uid, err := ev.Props.Text(ical.PropUID)
	if err != nil || uid == "" {
		t.Fatalf("%s: UID %q, %v", f.name, uid, err)
	}
	return uid
}

// eventStart is a file's DTSTART; go-ical reads its TZID with Go's zone
// database, which is where the gateway's VTIMEZONEs come from.
func eventStart(t *testing.T, f mirrored) time.Time {
	t.Helper()
	ev := parseEvent(t, f)
	start, err := ev.DateTimeStart(nil)
	if err != nil {
		t.Fatalf("%s: DTSTART: %v", f.name, err)
	}
	return start
}

// moveSession changes one session on or after date to an hour free in its
// room and for its staff, trying the sessions of each day and a few slots
// until one is accepted, and returns it as changed.
func moveSession(t *testing.T, s *server, date time.Time) session {
	t.Helper()
	slots := [][2]string{{"17:00", "18:00"}, {"22:00", "23:00"}, {"05:00", "05:45"}}
	for day := date; day.Before(date.AddDate(0, 0, 7)); day = day.AddDate(0, 0, 1) {
		for _, ss := range sessionsOn(t, s, day, day.AddDate(0, 0, 1), nil) {
			if ss.Ref == nil || ss.Date != day.Format(dateLayout) {
				continue
			}
			for _, slot := range slots {
				moved, code := changeSession(t, s, ss, map[string]any{"start": slot[0], "end": slot[1]})
				if code == "" {
					return moved
				}
				if code != "CLASH" {
					t.Fatalf("changeSession %s to %v: %s", ss.ID, slot, code)
				}
			}
		}
	}
	t.Fatalf("no session from %s for a week could be moved to any of %v", date.Format(dateLayout), slots)
	return session{}
}

// changeSession applies a SessionChangeInput to a session and returns the
// session as changed, or the error's code.
func changeSession(t *testing.T, s *server, ss session, change map[string]any) (session, string) {
	t.Helper()
	data, errs := post(t, s.url, bootstrapToken, `mutation($ref: SessionRefInput!, $change: SessionChangeInput!) {
		changeSession(ref: $ref, change: $change) { session { `+sessionFields+` } } }`, map[string]any{
		"ref":    map[string]any{"date": ss.Ref.Date, "classTimeId": ss.Ref.ClassTime.ID, "classId": ss.Ref.Class.ID},
		"change": change,
	})
	if len(errs) > 0 {
		code, _ := errs[0]["extensions"].(map[string]any)["code"].(string)
		if code == "" {
			code = fmt.Sprint(errs)
		}
		return session{}, code
	}
	var out struct{ ChangeSession struct{ Session session } }
	decodeData(t, data, &out)
	return out.ChangeSession.Session, ""
}

// TestICALJSInstants reads the physio clinic's .ics feed (Europe/Berlin),
// fetched gzipped with Node's fetch as a web app does, with Mozilla's
// ical.js, resolving times through the feed's own VTIMEZONE,
// and checks that every event starts and ends at the instants GraphQL gives
// for its session, across the spring-forward and fall-back changes the
// window holds — with sessions moved into the skipped and the repeated
// hour besides.
func TestICALJSInstants(t *testing.T) {
	node := lookClient(t, "node", "install Node.js 20")
	script := filepath.Join("testdata", "clients", "instants.mjs")
	if _, err := os.Stat(filepath.Join("testdata", "clients", "node_modules", "ical.js", "package.json")); err != nil {
		needClient(t, "ical.js", "npm ci in cmd/koredyne/testdata/clients", err)
	}
	s := startDemo(t)
	var loaded struct {
		LoadDemo struct{ Business struct{ Kind string } }
	}
	query(t, s, `mutation { loadDemo(kind: CLINIC) { business { kind } } }`, nil, &loaded)
	if k := loaded.LoadDemo.Business.Kind; k != "CLINIC" {
		t.Fatalf("loadDemo(kind: CLINIC) loaded %s", k)
	}
	b := businessOf(t, s)
	loc := b.location(t)
	if b.TimeZone != "Europe/Berlin" {
		t.Fatalf("the clinic demo is in %s, want Europe/Berlin", b.TimeZone)
	}
	from, to := listingWindow(t, b, 8, 52)
	start := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, loc)
	end := time.Date(to.Year(), to.Month(), to.Day(), 0, 0, 0, 0, loc)

	// The changes of offset with a week of the window on each side; in any
	// 61 weeks there is a spring-forward and a fall-back among them.
	var changesAt []time.Time
	for at := start; ; {
		_, next := at.ZoneBounds()
		if next.IsZero() || !next.Before(end.AddDate(0, 0, -7)) {
			break
		}
		if next.After(start.AddDate(0, 0, 7)) {
			changesAt = append(changesAt, next)
		}
		at = next
	}
	var springs, falls int
	for _, c := range changesAt {
		if c.In(loc).IsDST() {
			springs++
		} else {
			falls++
		}
	}
	if springs == 0 || falls == 0 {
		t.Fatalf("%d springs forward and %d falls back in %v..%v: %v", springs, falls, start, end, changesAt)
	}

	// On each change's day, a session moved to 30 minutes into the hour
	// the change skips or repeats, until an hour after it; on a
	// spring-forward day another from the same time until an hour later,
	// which by RFC 5545 §3.3.5 starts when it ends (02:30 is 03:30).
	for _, c := range changesAt {
		_, before := c.Add(-time.Second).Zone()
		_, after := c.Zone()
		hour := c.Add(time.Duration(min(before, after)) * time.Second).UTC() // the skipped or repeated hour's wall clock
		day := civil(hour)
		spans := [][2]time.Duration{{30 * time.Minute, 2 * time.Hour}}
		if after > before {
			spans = append(spans, [2]time.Duration{30 * time.Minute, 90 * time.Minute})
		}
		for _, span := range spans {
			change := map[string]any{"date": day.Format(dateLayout),
				"start": hour.Add(span[0]).Format("15:04"), "end": hour.Add(span[1]).Format("15:04")}
			moved := false
			for _, ss := range sessionsOn(t, s, day.AddDate(0, 0, -7), day, nil) {
				if ss.Ref == nil {
					continue
				}
				if _, code := changeSession(t, s, ss, change); code == "" {
					moved = true
					break
				}
			}
			if !moved {
				t.Fatalf("no session of the week before could be changed to %v", change)
			}
		}
	}

	// What Go computes: GraphQL's instants for every session in the window.
	want := map[string]session{}
	for _, ss := range sessionsOn(t, s, from, to, nil) {
		want[ss.uid()] = ss
	}
	for _, c := range changesAt {
		var earlier, later bool
		for _, ss := range want {
			earlier = earlier || (ss.StartsAt.Before(c) && ss.StartsAt.After(c.AddDate(0, 0, -7)))
			later = later || (!ss.StartsAt.Before(c) && ss.StartsAt.Before(c.AddDate(0, 0, 7)))
		}
		if !earlier || !later {
			t.Errorf("the week before the change of %v has sessions: %v, the week after: %v; want both", c.In(loc), earlier, later)
		}
	}

	// What ical.js reads from the feed, fetched as a web app does.
	w := tap(t, s.url)
	out, _ := runClient(t, "", node, script, w.url+strings.TrimPrefix(b.FeedURL, s.url))
	w.checkGzip(t, "Node's fetch")
	var read []struct {
		UID, TZID  string
		Start, End time.Time
	}
	if err := json.Unmarshal(out, &read); err != nil {
		t.Fatalf("decoding instants.mjs's output: %v\n%.2000s", err, out)
	}

	t.Logf("ical.js read %d events of %s..%s; offset changes at %v", len(read), from.Format(dateLayout), to.Format(dateLayout), changesAt)
	got := map[string]bool{}
	var wrong, repeated, empty []string
	for _, e := range read {
		if got[e.UID] {
			t.Errorf("the feed holds %s twice", e.UID)
		}
		got[e.UID] = true
		if !e.End.After(e.Start) {
			empty = append(empty, fmt.Sprintf("%s: %s to %s", e.UID, e.Start.UTC().Format(time.RFC3339), e.End.UTC().Format(time.RFC3339)))
		}
		ss, ok := want[e.UID]
		switch {
		case !ok:
			continue // reported below with the sets
		case e.TZID == "" && (repeatedWallClock(ss.StartsAt, loc) || repeatedWallClock(ss.EndsAt, loc)):
			// A time the clocks show twice is written in UTC.
		case e.TZID != b.TimeZone:
			t.Errorf("%s: TZID %q, want %q", e.UID, e.TZID, b.TimeZone)
		}
		for _, x := range []struct {
			what      string
			got, want time.Time
		}{{"start", e.Start, ss.StartsAt}, {"end", e.End, ss.EndsAt}} {
			switch {
			case x.got.Equal(x.want):
			case repeatedWallClock(x.want, loc):
				repeated = append(repeated, fmt.Sprintf("%s %s: ical.js %s, Go %s (%s)", e.UID, x.what,
					x.got.UTC().Format(time.RFC3339), x.want.UTC().Format(time.RFC3339), x.want.In(loc).Format("2006-01-02 15:04 MST")))
			default:
				wrong = append(wrong, fmt.Sprintf("%s %s: ical.js reads %s, Go computes %s (%s)", e.UID, x.what,
					x.got.UTC().Format(time.RFC3339), x.want.UTC().Format(time.RFC3339), x.want.In(loc).Format("2006-01-02 15:04 MST")))
			}
		}
	}
	if len(wrong) > 0 {
		t.Errorf("%d instants of %d events differ; the first:\n%s", len(wrong), len(read), strings.Join(wrong[:min(len(wrong), 20)], "\n"))
	}
	if d := diffSets(sortedKeys(got), sortedKeys(want)); d != "" {
		t.Errorf("the feed's events against GraphQL's sessions in %s..%s: %s", from.Format(dateLayout), to.Format(dateLayout), d)
	}
	if len(got) < 500 {
		t.Errorf("ical.js read %d events from the feed; the clinic has far more in 61 weeks", len(got))
	}

	t.Run("ends after it starts", func(t *testing.T) {
		if len(empty) > 0 {
			// RFC 5545 §3.8.2.2: DTEND "MUST be later in time than" DTSTART.
			t.Errorf("sessions written with DTEND not after DTSTART:\n%s",
				strings.Join(empty, "\n"))
		}
	})
	t.Run("repeated hour", func(t *testing.T) {
		if len(repeated) > 0 {
			// RFC 5545 §3.3.5: a local time that occurs twice is the first
			// occurrence; the gateway (Go) writes it so. ical.js, like
			// libical, takes the second (Timezone.utcOffset:
			// "want_daylight = false").
			t.Errorf("ical.js reads a time of the repeated hour as another instant than the gateway means:\n%s",
				strings.Join(repeated, "\n"))
		}
	})
}

// repeatedWallClock reports whether the wall clock of at in loc also names
// another instant within a day: the hour a fall-back repeats. (Offsets
// change by multiples of 15 minutes.)
func repeatedWallClock(at time.Time, loc *time.Location) bool {
	const layout = "2006-01-02 15:04:05"
	wall := at.In(loc).Format(layout)
	for d := -24 * time.Hour; d <= 24*time.Hour; d += 15 * time.Minute {
		if d != 0 && at.Add(d).In(loc).Format(layout) == wall {
			return true
		}
	}
	return false
}

// vdirsyncerConfig writes a vdirsyncer configuration that mirrors every
// calendar a login of the demo business reads at base into dir/calendars,
// read-only, and returns its path.
func vdirsyncerConfig(t *testing.T, dir, base, user, password string) string {
	t.Helper()
	q := func(v string) string { b, _ := json.Marshal(v); return string(b) } // vdirsyncer reads values as JSON
	conf := `[general]
status_path = ` + q(filepath.Join(dir, "status")+"/") + `

[pair koredyne]
a = "gateway"
b = "local"
collections = ["from a"]
conflict_resolution = "a wins"

[storage gateway]
type = "caldav"
url = ` + q(base+"/caldav/") + `
username = ` + q(user) + `
password = ` + q(password) + `
read_only = true
item_types = ["VEVENT"]

[storage local]
type = "filesystem"
path = ` + q(filepath.Join(dir, "calendars")+"/") + `
fileext = ".ics"
`
	config := filepath.Join(dir, "config")
	if err := os.WriteFile(config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return config
}

// TestTsdav runs tsdav, the CalDAV client of most JavaScript apps, as an
// app sets it up: the server's address, a login, nothing else. On Node's
// fetch it asks for gzip; it finds the principal and the calendar home
// (RFC 6764), lists every calendar, and fetches each calendar's events
// (a calendar-query, then one multiget), which must be exactly the
// sessions GraphQL lists for the window, under the calendar's name.
// tsdav reads only answers whose Content-Type says XML: a discovery answer
// that lost it when gzipped was "cannot find principalUrl".
func TestTsdav(t *testing.T) {
	node := lookClient(t, "node", "install Node.js 20")
	if _, err := os.Stat(filepath.Join("testdata", "clients", "node_modules", "tsdav", "package.json")); err != nil {
		needClient(t, "tsdav", "npm ci in cmd/koredyne/testdata/clients", err)
	}
	s := startDemo(t)
	b := businessOf(t, s)
	ids, names := calendarIDs(t, s)
	w := tap(t, s.url)
	out, _ := runClient(t, "", node, filepath.Join("testdata", "clients", "tsdav.mjs"), w.url, "demo", bootstrapToken)
	var got struct {
		Principal, Home string
		Calendars       []struct {
			URL, Name, Ctag, SyncToken string
			UIDs                       []string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("decoding tsdav.mjs's output: %v\n%.2000s", err, out)
	}
	if p, h := urlPath(t, got.Principal), urlPath(t, got.Home); p != "/caldav/demo/" || h != "/caldav/demo/calendars/" {
		t.Errorf("principal %s and home %s, want /caldav/demo/ and /caldav/demo/calendars/", p, h)
	}
	// Each calendar's sessions: the business's, a staff member's, a room's.
	from, to := listingWindow(t, b, 8, 52)
	sessions := map[string][]string{}
	for _, ss := range sessionsOn(t, s, from, to, nil) {
		sessions["all"] = append(sessions["all"], ss.uid())
		sessions["room-"+ss.Room.ID] = append(sessions["room-"+ss.Room.ID], ss.uid())
		for _, p := range ss.Staff {
			sessions["staff-"+p.ID] = append(sessions["staff-"+p.ID], ss.uid())
		}
	}
	for id, uids := range timeOffsOn(t, s, from, to) {
		sessions[id] = append(sessions[id], uids...)
	}
	var found []string
	events := 0
	for _, c := range got.Calendars {
		id := strings.TrimSuffix(strings.TrimPrefix(urlPath(t, c.URL), "/caldav/demo/calendars/"), "/")
		found = append(found, id)
		wantName := b.Name
		if id != "all" {
			wantName = names[id] + " · " + b.Name
		}
		if c.Name != wantName || c.SyncToken == "" || c.Ctag == "" {
			t.Errorf("%s: named %q, sync token %q, ctag %q; want %q and both tags", id, c.Name, c.SyncToken, c.Ctag, wantName)
		}
		want := sessions[id]
		slices.Sort(want)
		if d := diffSets(c.UIDs, want); d != "" || len(c.UIDs) != len(want) {
			t.Errorf("%s: tsdav fetched other events than GraphQL lists for %s..%s: %s", id, from.Format(dateLayout), to.Format(dateLayout), d)
		}
		events += len(c.UIDs)
	}
	if d := diffSets(found, ids); d != "" {
		t.Errorf("calendars: %s", d)
	}
	t.Logf("tsdav fetched %d calendars, %d events", len(got.Calendars), events)
	w.checkGzip(t, "tsdav")
}
