package main

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// onTheWire is a client that neither asks for gzip by itself nor undoes
// it, so a test sees the headers and bytes as they are sent.
var onTheWire = &http.Client{
	Transport:     &http.Transport{DisableCompression: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// wireAnswer is an answer as sent: its status and headers, and its body
// unzipped when it came gzipped.
type wireAnswer struct {
	status  int
	header  http.Header
	body    []byte
	gzipped int // bytes on the wire, when gzipped
}

func sendWire(t *testing.T, method, url, body string, header ...string) wireAnswer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := onTheWire.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := wireAnswer{status: resp.StatusCode, header: resp.Header, body: raw}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s %s: gzip: %v", method, url, err)
		}
		if a.body, err = io.ReadAll(zr); err != nil {
			t.Fatalf("%s %s: gzip: %v", method, url, err)
		}
		a.gzipped = len(raw)
	}
	return a
}

// Content types of the server's answers.
const (
	xmlType      = "application/xml; charset=utf-8"
	calendarType = "text/calendar; charset=utf-8"
	htmlType     = "text/html; charset=utf-8"
	textType     = "text/plain; charset=utf-8"
	jsonType     = "application/json"
)

// TestContentTypes sends every kind of request the server answers — CalDAV
// from discovery to every REPORT, an event, a calendar, a feed, a timetable
// page, GraphQL, GraphiQL, and their errors — once without compression and
// once as calendar apps and browsers send them, with Accept-Encoding: gzip.
// Either way each answer says its Content-Type (every 207 the one XML type)
// and the same bytes; gzipped, every answer of 1 KB or more is compressed,
// with Vary: Accept-Encoding once.
func TestContentTypes(t *testing.T) {
	s := startDemo(t)
	login := []string{"Authorization", "Basic " + basicAuth("demo", bootstrapToken)}
	bearer := []string{"Authorization", "Bearer " + bootstrapToken, "Content-Type", "application/json"}
	var biz struct {
		Business struct{ FeedURL, TimetableURL string }
	}
	query(t, s, `{ business { feedUrl timetableUrl } }`, nil, &biz)
	local := func(u string) string {
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		return p.Path
	}
	cal := "/caldav/demo/calendars/all/"

	// The hrefs of the events and a sync token, to ask for some of them.
	first := sendWire(t, "REPORT", s.url+cal, `<D:sync-collection xmlns:D="DAV:"><D:sync-token/><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>`, login...)
	var listing struct {
		Hrefs []string `xml:"response>href"`
		Token string   `xml:"sync-token"`
	}
	if err := xml.Unmarshal(first.body, &listing); err != nil || len(listing.Hrefs) < 20 {
		t.Fatalf("the listing: %d hrefs, %v: %.500s", len(listing.Hrefs), err, first.body)
	}
	multiget := `<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getcontenttype/><D:getetag/><C:calendar-data/></D:prop>`
	for _, h := range listing.Hrefs[:10] {
		multiget += "<D:href>" + h + "</D:href>"
	}
	multiget += "</C:calendar-multiget>"
	today := time.Now().UTC()
	stamp := func(t time.Time) string { return t.Format("20060102T150405Z") }
	rangeQuery := func(days int, prop string) string {
		return `<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop>` + prop + `</D:prop>
			<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:time-range start="` + stamp(today) + `" end="` + stamp(today.AddDate(0, 0, days)) + `"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`
	}
	calendarProps := `<D:propfind xmlns:D="DAV:" xmlns:CS="http://calendarserver.org/ns/"><D:prop><D:displayname/><D:resourcetype/><D:sync-token/><CS:getctag/></D:prop></D:propfind>`

	for _, c := range []struct {
		name, method, path, body string
		header                   []string
		status                   int
		ctype                    string // "": no body
	}{
		{"OPTIONS", "OPTIONS", cal, "", login, 200, ""},
		{"well-known, depth 0", "PROPFIND", "/.well-known/caldav", "", append([]string{"Depth", "0"}, login...), 301, ""},
		{"well-known, depth 1", "PROPFIND", "/.well-known/caldav", "", append([]string{"Depth", "1"}, login...), 301, ""},
		{"root, depth 0", "PROPFIND", "/caldav/", `<D:propfind xmlns:D="DAV:"><D:prop><D:current-user-principal/></D:prop></D:propfind>`, append([]string{"Depth", "0"}, login...), 207, xmlType},
		{"root, depth 1", "PROPFIND", "/caldav/", "", append([]string{"Depth", "1"}, login...), 207, xmlType},
		{"principal, depth 0", "PROPFIND", "/caldav/demo/", `<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-home-set/><D:displayname/></D:prop></D:propfind>`, append([]string{"Depth", "0"}, login...), 207, xmlType},
		{"principal, depth 1", "PROPFIND", "/caldav/demo/", "", append([]string{"Depth", "1"}, login...), 207, xmlType},
		{"home, depth 0", "PROPFIND", "/caldav/demo/calendars/", calendarProps, append([]string{"Depth", "0"}, login...), 207, xmlType},
		{"home, depth 1", "PROPFIND", "/caldav/demo/calendars/", calendarProps, append([]string{"Depth", "1"}, login...), 207, xmlType},
		{"calendar, depth 0", "PROPFIND", cal, calendarProps, append([]string{"Depth", "0"}, login...), 207, xmlType},
		{"calendar, depth 1", "PROPFIND", cal, "", append([]string{"Depth", "1"}, login...), 207, xmlType},
		{"event, depth 0", "PROPFIND", listing.Hrefs[0], "", append([]string{"Depth", "0"}, login...), 207, xmlType},
		{"calendar-query, a month of data", "REPORT", cal, rangeQuery(30, "<D:getetag/><C:calendar-data/>"), append([]string{"Depth", "1"}, login...), 207, xmlType},
		{"calendar-query, a month of data again (kept)", "REPORT", cal, rangeQuery(30, "<D:getetag/><C:calendar-data/>"), append([]string{"Depth", "1"}, login...), 207, xmlType},
		{"calendar-query, a year of ETags", "REPORT", cal, rangeQuery(365, "<D:getetag/>"), append([]string{"Depth", "1"}, login...), 207, xmlType},
		{"calendar-query, a day expanded", "REPORT", cal, rangeQuery(1, `<D:getetag/><C:calendar-data><C:expand start="`+stamp(today)+`" end="`+stamp(today.AddDate(0, 0, 1))+`"/></C:calendar-data>`), append([]string{"Depth", "1"}, login...), 207, xmlType},
		{"calendar-query, the listing", "REPORT", cal, `<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"/></C:comp-filter></C:filter></C:calendar-query>`, append([]string{"Depth", "1"}, login...), 207, xmlType},
		{"calendar-multiget of 10", "REPORT", cal, multiget, login, 207, xmlType},
		{"sync-collection, first", "REPORT", cal, `<D:sync-collection xmlns:D="DAV:"><D:sync-token/><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>`, login, 207, xmlType},
		{"sync-collection, from a token", "REPORT", cal, `<D:sync-collection xmlns:D="DAV:"><D:sync-token>` + listing.Token + `</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>`, login, 207, xmlType},
		{"free-busy-query (not supported)", "REPORT", cal, `<C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav"><C:time-range start="` + stamp(today) + `" end="` + stamp(today.AddDate(0, 0, 7)) + `"/></C:free-busy-query>`, login, 403, xmlType},
		{"REPORT on the home", "REPORT", "/caldav/demo/calendars/", multiget, login, 403, xmlType},
		{"PUT (read-only)", "PUT", listing.Hrefs[0], "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", login, 403, xmlType},
		{"no such calendar", "PROPFIND", "/caldav/demo/calendars/nope/", "", append([]string{"Depth", "0"}, login...), 404, textType},
		{"not signed in", "PROPFIND", "/caldav/", "", []string{"Depth", "0"}, 401, textType},
		{"GET an event", "GET", listing.Hrefs[0], "", login, 200, calendarType},
		{"GET a calendar", "GET", cal, "", login, 200, calendarType},
		{"a feed", "GET", local(biz.Business.FeedURL), "", nil, 200, calendarType},
		{"a timetable page", "GET", local(biz.Business.TimetableURL), "", nil, 200, htmlType},
		{"GraphQL over POST", "POST", "/graphql", `{"query":"{ business { name } staff { id name } rooms { id name } }"}`, bearer, 200, jsonType},
		{"GraphQL, a week of days", "POST", "/graphql", `{"query":"{ days(from: \"` + today.Format("2006-01-02") + `\", to: \"` + today.AddDate(0, 0, 7).Format("2006-01-02") + `\") { date sessions { id startsAt endsAt } } }"}`, bearer, 200, jsonType},
		{"GraphQL over GET", "GET", "/graphql?query=" + url.QueryEscape("{ business { name } }"), "", bearer[:2], 200, jsonType},
		{"GraphQL, not JSON", "POST", "/graphql", `{"query":`, bearer, 400, jsonType},
		{"GraphiQL", "GET", "/", "", nil, 200, htmlType},
	} {
		t.Run(c.name, func(t *testing.T) {
			plain := sendWire(t, c.method, s.url+c.path, c.body, c.header...)
			zipped := sendWire(t, c.method, s.url+c.path, c.body, append([]string{"Accept-Encoding", "gzip"}, c.header...)...)
			for _, a := range []struct {
				how string
				wireAnswer
			}{{"plain", plain}, {"gzip", zipped}} {
				if a.status != c.status {
					t.Errorf("%s: status %d, want %d: %.300s", a.how, a.status, c.status, a.body)
				}
				if got := a.header.Values("Content-Type"); c.ctype == "" && len(a.body) != 0 || c.ctype != "" && (len(got) != 1 || got[0] != c.ctype) {
					t.Errorf("%s: Content-Type %q for %d bytes, want %q", a.how, got, len(a.body), c.ctype)
				}
			}
			if plain.header.Get("Content-Encoding") != "" {
				t.Errorf("compressed for a client that did not ask: %q", plain.header.Get("Content-Encoding"))
			}
			if !bytes.Equal(plain.body, zipped.body) {
				t.Errorf("the gzipped answer unzips to other bytes (%d, plain %d)", len(zipped.body), len(plain.body))
			}
			if len(plain.body) >= 1024 && zipped.gzipped == 0 {
				t.Errorf("%d bytes sent plain to a client that takes gzip", len(plain.body))
			}
			if zipped.gzipped > 0 {
				vary := 0
				for _, v := range zipped.header.Values("Vary") {
					for _, name := range strings.Split(v, ",") {
						if strings.EqualFold(strings.TrimSpace(name), "Accept-Encoding") {
							vary++
						}
					}
				}
				if vary != 1 {
					t.Errorf("Vary %q lists Accept-Encoding %d times, want once", zipped.header.Values("Vary"), vary)
				}
			}
			t.Log(fmt.Sprintf("%d %s, %d bytes, %d gzipped", plain.status, plain.header.Get("Content-Type"), len(plain.body), zipped.gzipped))
		})
	}
}
