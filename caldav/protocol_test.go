package caldav_test

import (
	"context"
	"encoding/xml"
	"net/http"
	"strings"
	"testing"
	"time"

	webcaldav "github.com/emersion/go-webdav/caldav"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestDiscoveryAndQueries walks the gym the way a calendar app does, with
// go-webdav's client: well-known, principal, home, calendars, a time-range
// query years ahead, a multiget, a GET with its ETag.
func TestDiscoveryAndQueries(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			g := newGateway(t, d, "harbor", engine.Gym, 8, 52)
			c := g.client()

			resp := g.do("GET", "/.well-known/caldav", "")
			if resp.Request.URL.Path != "/caldav/harbor/" {
				t.Errorf("well-known led to %s", resp.Request.URL.Path)
			}
			home := discover(t, c, "harbor")
			cals, err := c.FindCalendars(ctx, home)
			if err != nil {
				t.Fatal(err)
			}
			// The business, 11 coaches and 3 rooms.
			if len(cals) != 15 || cals[0].Path != home+"all/" || cals[0].Name != "Harbor Combat Club" {
				t.Fatalf("%d calendars, first %+v", len(cals), cals[0])
			}

			// Any range is computed, even three years ahead.
			start := time.Date(2029, 12, 2, 0, 0, 0, 0, time.UTC) // a Sunday
			objs, err := c.QueryCalendar(ctx, home+"all/", &webcaldav.CalendarQuery{
				CompRequest: webcaldav.CalendarCompRequest{Name: "VCALENDAR", AllProps: true, AllComps: true},
				CompFilter: webcaldav.CompFilter{Name: "VCALENDAR", Comps: []webcaldav.CompFilter{{
					Name: "VEVENT", Start: start, End: start.Add(24 * time.Hour),
				}}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) < 10 {
				t.Fatalf("%d events on a Sunday in 2029", len(objs))
			}
			for _, o := range objs {
				ev := o.Data.Events()[0]
				s, err := ev.DateTimeStart(nil)
				if err != nil || s.Before(start.Add(-3*time.Hour)) || !s.Before(start.Add(24*time.Hour)) {
					t.Errorf("%s starts %v (%v), outside the day asked", o.Path, s, err)
				}
				if o.ETag == "" {
					t.Errorf("%s has no ETag", o.Path)
				}
			}

			got, err := c.MultiGetCalendar(ctx, home+"all/", &webcaldav.CalendarMultiGet{
				Paths:       []string{objs[0].Path, objs[1].Path},
				CompRequest: webcaldav.CalendarCompRequest{AllProps: true, AllComps: true},
			})
			if err != nil || len(got) != 2 {
				t.Fatalf("multiget: %d objects, %v", len(got), err)
			}
			ms := decodeMultistatus(t, g.do("REPORT", home+"all/", `<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
				<D:prop><D:getetag/></D:prop><D:href>`+home+`all/s-2029-12-02-999-1.ics</D:href></C:calendar-multiget>`))
			if len(ms.Responses) != 1 || !strings.Contains(ms.Responses[0].Status, "404") {
				t.Errorf("multiget of a session that does not happen: %+v", ms.Responses)
			}

			// GET: a strong ETag, 304 when the client has it.
			resp = g.do("GET", objs[0].Path, "")
			body := read(t, resp)
			etag := resp.Header.Get("ETag")
			if resp.StatusCode != 200 || !strings.HasPrefix(etag, `"`) || !strings.Contains(body, "BEGIN:VEVENT") {
				t.Fatalf("GET: %d %q", resp.StatusCode, etag)
			}
			if resp := g.do("GET", objs[0].Path, "", "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
				t.Errorf("GET with its ETag: %d, want 304", resp.StatusCode)
			}
			if `"`+objs[0].ETag+`"` != etag && objs[0].ETag != etag {
				t.Errorf("REPORT said ETag %q, GET %q", objs[0].ETag, etag)
			}

			// The feed and CalDAV serve the same bytes for a session.
			feed := read(t, get(t, g.feed("all"), ""))
			if first := listedEvent(t, g, home+"all/"); !strings.Contains(feed, first) {
				t.Error("a VEVENT of CalDAV is not byte-identical in the feed")
			}
			// A query with no time range lists the window.
			listed := decodeMultistatus(t, g.do("REPORT", home+"all/", `<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop>
				<C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>`))
			if n := strings.Count(feed, "BEGIN:VEVENT"); len(listed.Responses) != n {
				t.Errorf("a query with no range lists %d events, the feed %d", len(listed.Responses), n)
			}
			// A range open at one end (RFC 4791 §9.9) reaches the window's
			// other end: DAVx5 asks for the events from 90 days ago on, with
			// no end, and gets every event the window lists (it starts 8
			// weeks back), and so does a range open far on either side.
			ninetyDaysAgo := now.AddDate(0, 0, -90).UTC().Format("20060102T150405Z")
			for _, attrs := range []string{`start="` + ninetyDaysAgo + `"`, `start="20000101T000000Z"`, `end="21000101T000000Z"`} {
				ms := decodeMultistatus(t, g.do("REPORT", home+"all/", `<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop>
				<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:time-range `+attrs+`/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`))
				got := map[string]bool{}
				for _, r := range ms.Responses {
					got[r.Href] = true
				}
				missing := 0
				for _, r := range listed.Responses {
					if !got[r.Href] {
						missing++
					}
				}
				if missing > 0 {
					t.Errorf("a time range with only %s leaves out %d of the window's %d events", attrs, missing, len(listed.Responses))
				}
			}
		})
	}
}

// discover finds the principal and the calendar home of a login as
// calendar apps do (RFC 6764, RFC 4791 §6.2.1), and returns the home.
func discover(t *testing.T, c *webcaldav.Client, login string) string {
	t.Helper()
	principal, err := c.FindCurrentUserPrincipal(context.Background())
	if err != nil || principal != "/caldav/"+login+"/" {
		t.Fatalf("principal %q, %v", principal, err)
	}
	home, err := c.FindCalendarHomeSet(context.Background(), principal)
	if err != nil || home != "/caldav/"+login+"/calendars/" {
		t.Fatalf("home %q, %v", home, err)
	}
	return home
}

// listedEvent returns the VEVENT of the first event the calendar lists.
func listedEvent(t *testing.T, g *gateway, cal string) string {
	t.Helper()
	ms := propfind(t, g, cal, "1", `<D:propfind xmlns:D="DAV:"><D:prop><D:getetag/></D:prop></D:propfind>`)
	if len(ms.Responses) < 2 {
		t.Fatalf("the calendar lists nothing")
	}
	body := read(t, g.do("GET", ms.Responses[1].Href, ""))
	return body[strings.Index(body, "BEGIN:VEVENT"):strings.Index(body, "END:VEVENT")]
}

type multistatus struct {
	Responses []struct {
		Href     string `xml:"href"`
		Status   string `xml:"status"`
		Propstat []struct {
			Prop struct {
				ETag      string `xml:"getetag"`
				SyncToken string `xml:"sync-token"`
				CTag      string `xml:"getctag"`
				Privilege struct {
					Inner string `xml:",innerxml"`
				} `xml:"current-user-privilege-set"`
				Data string `xml:"calendar-data"`
			} `xml:"prop"`
			Status string `xml:"status"`
		} `xml:"propstat"`
	} `xml:"response"`
	SyncToken string `xml:"sync-token"`
}

func propfind(t *testing.T, g *gateway, path, depth, body string) multistatus {
	t.Helper()
	resp := g.do("PROPFIND", path, body, "Depth", depth)
	return decodeMultistatus(t, resp)
}

func decodeMultistatus(t *testing.T, resp *http.Response) multistatus {
	t.Helper()
	body := read(t, resp)
	if resp.StatusCode != http.StatusMultiStatus {
		t.Fatalf("%s %s: %d %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, body)
	}
	var ms multistatus
	if err := xml.Unmarshal([]byte(body), &ms); err != nil {
		t.Fatalf("not a multistatus: %v\n%s", err, body)
	}
	return ms
}

const syncBody = `<D:sync-collection xmlns:D="DAV:"><D:sync-token>%s</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>`

// TestSyncCollection checks RFC 6578: a first sync lists everything, a
// sync after a day change returns just that event, an unknown token 403.
func TestSyncCollection(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			g := newGateway(t, d, "meridian", engine.Office, 8, 52)
			cal := "/caldav/meridian/calendars/all/"
			sync := func(token string) multistatus {
				t.Helper()
				return decodeMultistatus(t, g.do("REPORT", cal, strings.Replace(syncBody, "%s", token, 1)))
			}
			first := sync("")
			if len(first.Responses) < 100 || first.SyncToken == "" {
				t.Fatalf("first sync: %d items, token %q", len(first.Responses), first.SyncToken)
			}
			ctag := propfind(t, g, cal, "0", `<D:propfind xmlns:D="DAV:" xmlns:CS="http://calendarserver.org/ns/"><D:prop><D:sync-token/><CS:getctag/><D:current-user-privilege-set/></D:prop></D:propfind>`)
			p := ctag.Responses[0].Propstat[0].Prop
			if p.SyncToken != first.SyncToken || p.CTag != first.SyncToken {
				t.Errorf("PROPFIND sync-token %q, ctag %q; the sync said %q", p.SyncToken, p.CTag, first.SyncToken)
			}
			if !strings.Contains(p.Privilege.Inner, "read") || strings.Contains(p.Privilege.Inner, "write") {
				t.Errorf("privileges %q, want read only", p.Privilege.Inner)
			}
			if again := sync(first.SyncToken); len(again.Responses) != 0 || again.SyncToken != first.SyncToken {
				t.Errorf("nothing changed, yet %d items (token %q → %q)", len(again.Responses), first.SyncToken, again.SyncToken)
			}

			// Cancel one standup and move another to the next day.
			sn, _ := g.store.Snapshot(context.Background(), g.biz.ID, -1)
			var refs []engine.SessionRef
			for _, s := range sn.Timetable.Day(engine.MustDate(2026, 12, 8)) {
				if !s.IsOneOff() && len(refs) < 2 {
					refs = append(refs, s.Ref())
				}
			}
			next := engine.MustDate(2026, 12, 9)
			g.write(func(e *models.Edit) error {
				e.State.Changes = append(e.State.Changes,
					engine.DayChange{Ref: refs[0], Cancelled: true, Note: "flu"},
					engine.DayChange{Ref: refs[1], Date: next, Start: ptr(engine.MustTime("17:00")), End: ptr(engine.MustTime("18:00"))})
				return nil
			})
			changed := sync(first.SyncToken)
			if len(changed.Responses) != 2 || changed.SyncToken == first.SyncToken {
				var hrefs []string
				for _, r := range changed.Responses {
					hrefs = append(hrefs, r.Href)
				}
				t.Fatalf("after two day changes the sync returned %v", hrefs)
			}
			want := map[string]bool{}
			for _, ref := range refs {
				want[cal+strings.ReplaceAll(ref.Key(), "/", "-")+".ics"] = true
			}
			for _, r := range changed.Responses {
				if !want[r.Href] {
					t.Errorf("the sync returned %s, which did not change", r.Href)
				}
			}

			// Removing a series: its sessions vanish (404 in the sync).
			before := sync(changed.SyncToken)
			if len(before.Responses) != 0 {
				t.Fatalf("%d items changed with nothing changing", len(before.Responses))
			}
			g.write(func(e *models.Edit) error {
				for _, s := range e.State.Series {
					if s.Name == "Bluefin Legal check-in" {
						return e.State.RemoveSeries(s.ID)
					}
				}
				t.Fatal("no check-in series")
				return nil
			})
			gone := sync(changed.SyncToken)
			vanished := 0
			for _, r := range gone.Responses {
				if strings.Contains(r.Status, "404") {
					vanished++
				}
			}
			if vanished < 50 || vanished != len(gone.Responses) {
				t.Errorf("after removing a weekly series: %d vanished of %d items", vanished, len(gone.Responses))
			}

			resp := g.do("REPORT", cal, strings.Replace(syncBody, "%s", "urn:koredyne:sync:nonsense", 1))
			body := read(t, resp)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "valid-sync-token") {
				t.Errorf("an unknown token: %d %s", resp.StatusCode, body)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestReadOnlyAndBadInput: writes are refused and change nothing; bad
// requests get a 4xx, never a 5xx.
func TestReadOnlyAndBadInput(t *testing.T) {
	d := modelstest.SQLite(t)
	g := newGateway(t, d, "harbor", engine.Gym, 8, 52)
	cal := "/caldav/harbor/calendars/all/"
	sn, _ := g.store.Snapshot(context.Background(), g.biz.ID, -1)
	before := sn.Business.Revision
	for _, m := range []string{"PUT", "DELETE", "MKCALENDAR", "MKCOL", "PROPPATCH", "MOVE", "COPY", "POST", "LOCK"} {
		resp := g.do(m, cal+"s-2026-12-01-2-1.ics", "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")
		read(t, resp)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", m, resp.StatusCode)
		}
	}
	if sn, _ := g.store.Snapshot(context.Background(), g.biz.ID, -1); sn.Business.Revision != before {
		t.Error("a refused write changed the business")
	}
	query := func(tr string) string {
		return `<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">` + tr + `</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`
	}
	tests := []struct {
		name, method, path, body, depth string
		status                          int
	}{
		{"malformed XML", "PROPFIND", cal, "<D:propfind xmlns:D=\"DAV:\"><D:prop>", "0", 400},
		{"Depth infinity", "PROPFIND", cal, "", "infinity", 403},
		{"unknown REPORT", "REPORT", cal, `<D:expand-property xmlns:D="DAV:"/>`, "", 403},
		{"inverted range", "REPORT", cal, query(`<C:time-range start="20270101T000000Z" end="20260101T000000Z"/>`), "1", 400},
		{"absurd range", "REPORT", cal, query(`<C:time-range start="00010101T000000Z" end="99991231T000000Z"/>`), "1", 400},
		{"not a time", "REPORT", cal, query(`<C:time-range start="tomorrow"/>`), "1", 400},
		{"huge body", "REPORT", cal, strings.Repeat(" ", 2<<20), "", 413},
		{"another login's home", "PROPFIND", "/caldav/someone/calendars/", "", "0", 404},
		{"no such calendar", "PROPFIND", "/caldav/harbor/calendars/room-999/", "", "0", 404},
		{"no such event", "GET", cal + "s-2026-12-01-999-1.ics", "", "", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var header []string
			if tt.depth != "" {
				header = []string{"Depth", tt.depth}
			}
			resp := g.do(tt.method, tt.path, tt.body, header...)
			read(t, resp)
			if resp.StatusCode != tt.status {
				t.Errorf("got %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
	// An event that ends exactly when the range starts is out (RFC 4791 §9.9).
	ms := decodeMultistatus(t, g.do("REPORT", cal, query(`<C:time-range start="20261201T040000Z" end="20261201T040100Z"/>`), "Depth", "1"))
	for _, r := range ms.Responses {
		t.Errorf("%s is listed but the sessions before end at 07:00 Kuwait time (04:00Z)", r.Href)
	}
	ms = decodeMultistatus(t, g.do("REPORT", cal, query(`<C:time-range start="20261201T035900Z" end="20261201T040000Z"/>`), "Depth", "1"))
	if len(ms.Responses) == 0 {
		t.Error("the sessions that end at 04:00Z overlap 03:59Z–04:00Z")
	}
}

// TestAccess: credentials of one business never open another's calendars,
// a staff login sees only its own calendar, feed tokens rotate.
func TestAccess(t *testing.T) {
	d := modelstest.SQLite(t)
	g := newGateway(t, d, "harbor", engine.Gym, 8, 52)
	other := newGateway(t, d, "meridian", engine.Office, 8, 52)
	ctx := context.Background()

	req, _ := http.NewRequest("PROPFIND", g.srv.URL+"/caldav/harbor/calendars/", nil)
	req.SetBasicAuth("harbor", other.token) // meridian's token with harbor's name
	req.Header.Set("Depth", "0")
	if resp, _ := http.DefaultClient.Do(req); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("another business's token: %d, want 401", resp.StatusCode)
	}

	sn, _ := g.store.Snapshot(ctx, g.biz.ID, -1)
	marco := sn.State.Staff[0]
	password, _, err := models.CreateAppPassword(ctx, d.DB, g.biz.ID, "marco", marco.ID, models.StaffRole)
	if err != nil {
		t.Fatal(err)
	}
	req, _ = http.NewRequest("PROPFIND", g.srv.URL+"/caldav/marco/calendars/", strings.NewReader(""))
	req.SetBasicAuth("marco", password)
	req.Header.Set("Depth", "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ms := decodeMultistatus(t, resp)
	if len(ms.Responses) != 2 || ms.Responses[1].Href != "/caldav/marco/calendars/"+models.CalendarOf("staff", marco.ID)+"/" {
		var hrefs []string
		for _, r := range ms.Responses {
			hrefs = append(hrefs, r.Href)
		}
		t.Errorf("a coach's login lists %v, want the home and their own calendar", hrefs)
	}
	req, _ = http.NewRequest("PROPFIND", g.srv.URL+"/caldav/marco/calendars/all/", nil)
	req.SetBasicAuth("marco", password)
	req.Header.Set("Depth", "0")
	if resp, _ := http.DefaultClient.Do(req); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a coach's login opening the business calendar: %d, want 404", resp.StatusCode)
	}

	url := g.feed("all")
	resp = get(t, url, "")
	etag := resp.Header.Get("ETag")
	read(t, resp)
	if resp.StatusCode != 200 || etag == "" {
		t.Fatalf("feed: %d %q", resp.StatusCode, etag)
	}
	if resp := get(t, url, etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("feed with its ETag: %d, want 304", resp.StatusCode)
	}
	if _, err := models.RotateFeed(ctx, d.DB, g.biz.ID, "all"); err != nil {
		t.Fatal(err)
	}
	if resp := get(t, url, ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the old feed URL after rotation: %d, want 404", resp.StatusCode)
	}
	if resp := get(t, g.feed("all"), ""); resp.StatusCode != 200 {
		t.Errorf("the new feed URL: %d", resp.StatusCode)
	}
}

// applePrincipalProps is the PROPFIND Apple's calendar apps send a
// principal: the 13 properties it asks for, as recorded against Radicale
// and Apple's CalendarServer.
const applePrincipalProps = `<?xml version="1.0" encoding="UTF-8"?>
<A:propfind xmlns:A="DAV:">
  <A:prop>
    <B:calendar-home-set xmlns:B="urn:ietf:params:xml:ns:caldav"/>
    <B:calendar-user-address-set xmlns:B="urn:ietf:params:xml:ns:caldav"/>
    <A:current-user-principal/>
    <A:displayname/>
    <C:dropbox-home-URL xmlns:C="http://calendarserver.org/ns/"/>
    <C:email-address-set xmlns:C="http://calendarserver.org/ns/"/>
    <C:notification-URL xmlns:C="http://calendarserver.org/ns/"/>
    <A:principal-collection-set/>
    <A:principal-URL/>
    <A:resource-id/>
    <B:schedule-inbox-URL xmlns:B="urn:ietf:params:xml:ns:caldav"/>
    <B:schedule-outbox-URL xmlns:B="urn:ietf:params:xml:ns:caldav"/>
    <A:supported-report-set/>
  </A:prop>
</A:propfind>`

// props is a multistatus read generically: for each href, the props found
// (200) with their inner XML, and the names of those not found (404).
type props struct {
	found   map[string]string
	missing []string
}

func readProps(t *testing.T, resp *http.Response) map[string]props {
	t.Helper()
	body := read(t, resp)
	if resp.StatusCode != http.StatusMultiStatus || resp.Header.Get("Content-Type") != "application/xml; charset=utf-8" {
		t.Fatalf("%s %s: %d, Content-Type %q: %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var ms struct {
		Responses []struct {
			Href     string `xml:"href"`
			Propstat []struct {
				Prop struct {
					Props []struct {
						XMLName xml.Name
						Inner   string `xml:",innerxml"`
					} `xml:",any"`
				} `xml:"prop"`
				Status string `xml:"status"`
			} `xml:"propstat"`
		} `xml:"response"`
	}
	if err := xml.Unmarshal([]byte(body), &ms); err != nil {
		t.Fatalf("not a multistatus: %v\n%s", err, body)
	}
	out := map[string]props{}
	for _, r := range ms.Responses {
		p := props{found: map[string]string{}}
		for _, ps := range r.Propstat {
			for _, x := range ps.Prop.Props {
				name := x.XMLName.Space + " " + x.XMLName.Local
				switch ps.Status {
				case "HTTP/1.1 200 OK":
					p.found[name] = strings.TrimSpace(x.Inner)
				case "HTTP/1.1 404 Not Found":
					p.missing = append(p.missing, name)
				default:
					t.Errorf("%s: %s answered %s", r.Href, name, ps.Status)
				}
			}
		}
		out[r.Href] = p
	}
	return out
}

// hrefs reads the DAV:href elements of a prop's inner XML (which uses
// the gateway's prefix, D, for DAV:).
func hrefs(t *testing.T, inner string) []string {
	t.Helper()
	var v struct {
		Hrefs []string `xml:"DAV: href"`
	}
	if err := xml.Unmarshal([]byte(`<x xmlns:D="DAV:">`+inner+"</x>"), &v); err != nil {
		t.Fatalf("%q: %v", inner, err)
	}
	return v.Hrefs
}

// TestPrincipal asks the root and a login's principal what calendar apps
// ask in discovery (RFC 6764, RFC 5397, RFC 3744 §4, RFC 4791 §6.2, RFC
// 6638 §2.4.1): the root names the principal and lists it at Depth 1; the
// principal answers Apple's thirteen properties with what the gateway has
// (its name, its URL, its calendar home, no calendar-user addresses and no
// reports) and 404 for the scheduling, sharing and Apple properties it does
// not, and lists its calendar home at Depth 1.
func TestPrincipal(t *testing.T) {
	g := newGateway(t, modelstest.SQLite(t), "harbor", engine.Gym, 8, 52)
	ctx := context.Background()
	sn, _ := g.store.Snapshot(ctx, g.biz.ID, -1)
	marco := sn.State.Staff[0]
	password, _, err := models.CreateAppPassword(ctx, g.store.DB, g.biz.ID, "marco", marco.ID, models.StaffRole)
	if err != nil {
		t.Fatal(err)
	}
	const (
		nsD, nsC = "DAV: ", "urn:ietf:params:xml:ns:caldav "
	)
	for _, c := range []struct {
		login, password, name string
	}{{"harbor", g.token, "Harbor Combat Club"}, {"marco", password, marco.Name}} {
		t.Run(c.login, func(t *testing.T) {
			do := func(method, path, depth, body string) map[string]props {
				t.Helper()
				req, _ := http.NewRequest(method, g.srv.URL+path, strings.NewReader(body))
				req.SetBasicAuth(c.login, c.password)
				req.Header.Set("Depth", depth)
				req.Header.Set("Content-Type", "application/xml; charset=utf-8")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				return readProps(t, resp)
			}
			principal, home := "/caldav/"+c.login+"/", "/caldav/"+c.login+"/calendars/"

			root := do("PROPFIND", "/caldav/", "0", `<D:propfind xmlns:D="DAV:"><D:prop><D:current-user-principal/><D:resourcetype/></D:prop></D:propfind>`)
			if got := hrefs(t, root["/caldav/"].found[nsD+"current-user-principal"]); len(root) != 1 || len(got) != 1 || got[0] != principal {
				t.Errorf("the root: %+v, want /caldav/ naming %s", root, principal)
			}
			if root := do("PROPFIND", "/caldav/", "1", `<D:propfind xmlns:D="DAV:"><D:prop><D:displayname/></D:prop></D:propfind>`); len(root) != 2 || root[principal].found[nsD+"displayname"] != c.name {
				t.Errorf("the root at Depth 1: %+v, want it and %s named %q", root, principal, c.name)
			}

			got := do("PROPFIND", principal, "0", applePrincipalProps)
			p, ok := got[principal]
			if len(got) != 1 || !ok {
				t.Fatalf("the principal answered for %v", got)
			}
			if v := p.found[nsD+"displayname"]; v != c.name {
				t.Errorf("displayname %q, want %q", v, c.name)
			}
			for prop, want := range map[string]string{nsD + "principal-URL": principal, nsD + "current-user-principal": principal, nsC + "calendar-home-set": home} {
				if got := hrefs(t, p.found[prop]); len(got) != 1 || got[0] != want {
					t.Errorf("%s: %v, want %s", prop, got, want)
				}
			}
			for _, prop := range []string{nsC + "calendar-user-address-set", nsD + "supported-report-set"} {
				if v, ok := p.found[prop]; !ok || v != "" {
					t.Errorf("%s: %q (found %v), want an empty set", prop, v, ok)
				}
			}
			if len(p.found) != 6 || len(p.missing) != 7 {
				t.Errorf("found %v, missing %v; want 6 found and the 7 others missing", p.found, p.missing)
			}

			if got := do("PROPFIND", principal, "1", `<D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/></D:prop></D:propfind>`); len(got) != 2 ||
				got[principal].found[nsD+"resourcetype"] != "<D:collection/><D:principal/>" || got[home].found[nsD+"resourcetype"] != "<D:collection/>" {
				t.Errorf("the principal at Depth 1: %+v, want it and its calendar home", got)
			}
		})
	}
}
