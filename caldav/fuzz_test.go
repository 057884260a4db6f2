package caldav_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/modelstest"
)

// FuzzRequestBody sends any body to the gateway's reading methods: a
// calendar client's XML, broken, hostile or huge, is answered without a
// server fault.
func FuzzRequestBody(f *testing.F) {
	query := `<?xml version="1.0"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop>` +
		`<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:time-range start="20261201T000000Z" end="20261208T000000Z"/>` +
		`</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`
	const propfind, report = 0, 1
	const root, home, all, event = 0, 1, 2, 3
	for _, seed := range []struct {
		method, path uint8
		body         string
	}{
		{report, all, query},
		{propfind, home, `<D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:displayname/><D:sync-token/></D:prop></D:propfind>`},
		{propfind, root, `<D:propfind xmlns:D="DAV:"><D:prop><D:current-user-principal/></D:prop></D:propfind>`},
		{propfind, all, `<D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>`},
		{report, all, `<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop><D:href>/caldav/fuzz/calendars/all/x.ics</D:href></C:calendar-multiget>`},
		{report, all, `<D:sync-collection xmlns:D="DAV:"><D:sync-token>urn:koredyne:sync:1</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>`},
		{report, all, strings.Replace(query, "20261208T000000Z", "21991231T000000Z", 1)},
		{report, all, strings.Replace(query, `start="20261201T000000Z"`, `start="x"`, 1)},
		{propfind, home, `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><D:propfind xmlns:D="DAV:"><D:prop>&x;</D:prop></D:propfind>`},
		{propfind, event, ""}, {report, all, "<"}, {report, all, "\x00"},
		{propfind, home, "<D:propfind xmlns:D=\"DAV:\">" + strings.Repeat("<D:prop>", 1000)},
	} {
		f.Add(seed.method, seed.path, seed.body)
	}
	g := newGateway(f, modelstest.SQLite(f), "fuzz", engine.Gym, 8, 52)
	methods := []string{"PROPFIND", "REPORT"}
	paths := []string{"/caldav/", "/caldav/fuzz/calendars/", "/caldav/fuzz/calendars/all/", "/caldav/fuzz/calendars/all/x.ics"}
	f.Fuzz(func(t *testing.T, m, p uint8, body string) {
		method, path := methods[int(m)%len(methods)], paths[int(p)%len(paths)]
		req, err := http.NewRequest(method, g.srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth(g.biz.Slug, g.token)
		req.Header.Set("Content-Type", "application/xml; charset=utf-8")
		req.Header.Set("Depth", "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Errorf("%s %s: status %d: %s", method, path, resp.StatusCode, b)
		}
	})
}
