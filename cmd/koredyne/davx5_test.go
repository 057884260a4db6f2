package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// davx5 syncs every calendar of a login the way DAVx5 does a first sync,
// with the requests it sends (bitfireAT/davx5-ose: SyncManager and
// CalendarSyncManager; bitfireAT/dav4jvm: DavCalendar and DavCollection),
// over Go's HTTP client, which like OkHttp asks for gzip and unzips:
//
//   - discovery: the principal from /.well-known/caldav, its
//     calendar-home-set, the home's calendars (Depth 1);
//   - for each calendar, its capabilities (PROPFIND Depth 0:
//     max-resource-size, supported-report-set, getctag, sync-token);
//   - its events listed: with DAVx5's default of 90 past days
//     (DEFAULT_TIME_RANGE_PAST_DAYS), a calendar-query for the ETags of
//     VEVENTs from 90 days ago, with no end; with past events kept
//     (pastDays 0), a sync-collection from no token;
//   - the events fetched in calendar-multigets of 10 hrefs
//     (MAX_MULTIGET_RESOURCES), asking getcontenttype, getetag,
//     schedule-tag and calendar-data.
//
// It stops at the first answer that is not a success.
type davx5 struct {
	base, login, password string
	pastDays              int
	now                   time.Time
}

// synced is what a sync did: its requests, the events it listed and
// fetched by calendar path, and the first answer it could not use.
type synced struct {
	requests int
	listed   map[string][]string
	fetched  map[string]int
	failure  string
}

// davMultistatus is what the sync reads of a multistatus.
type davMultistatus struct {
	Responses []struct {
		Href     string `xml:"DAV: href"`
		Status   string `xml:"DAV: status"`
		Propstat []struct {
			Prop struct {
				Principal struct {
					Href string `xml:"DAV: href"`
				} `xml:"DAV: current-user-principal"`
				Home struct {
					Href string `xml:"DAV: href"`
				} `xml:"urn:ietf:params:xml:ns:caldav calendar-home-set"`
				ResourceType struct {
					Calendar *struct{} `xml:"urn:ietf:params:xml:ns:caldav calendar"`
				} `xml:"DAV: resourcetype"`
				ETag         string `xml:"DAV: getetag"`
				CalendarData string `xml:"urn:ietf:params:xml:ns:caldav calendar-data"`
			} `xml:"DAV: prop"`
			Status string `xml:"DAV: status"`
		} `xml:"DAV: propstat"`
	} `xml:"DAV: response"`
}

func (d davx5) sync() synced {
	out := synced{listed: map[string][]string{}, fetched: map[string]int{}}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(method, path, depth, body string) (davMultistatus, *http.Response) {
		var ms davMultistatus
		if out.failure != "" {
			return ms, nil
		}
		req, err := http.NewRequest(method, d.base+path, strings.NewReader(body))
		if err != nil {
			out.failure = err.Error()
			return ms, nil
		}
		req.SetBasicAuth(d.login, d.password)
		req.Header.Set("Content-Type", "application/xml; charset=utf-8")
		if depth != "" {
			req.Header.Set("Depth", depth)
		}
		out.requests++
		resp, err := client.Do(req)
		if err != nil {
			out.failure = err.Error()
			return ms, nil
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		switch {
		case err != nil:
			out.failure = fmt.Sprintf("%s %s: %v", method, path, err)
		case resp.StatusCode == http.StatusMovedPermanently:
		case resp.StatusCode != http.StatusMultiStatus:
			out.failure = fmt.Sprintf("%s %s: %s: %.200s", method, path, resp.Status, b)
		default:
			if err := xml.Unmarshal(b, &ms); err != nil {
				out.failure = fmt.Sprintf("%s %s: %v", method, path, err)
			}
		}
		return ms, resp
	}
	propfind := func(props string) string {
		return `<?xml version="1.0" encoding="UTF-8"?><propfind xmlns="DAV:" xmlns:CAL="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/" xmlns:ICAL="http://apple.com/ns/ical/"><prop>` + props + `</prop></propfind>`
	}

	_, resp := send("PROPFIND", "/.well-known/caldav", "0", propfind("<current-user-principal/>"))
	if resp == nil {
		return out
	}
	ms, _ := send("PROPFIND", resp.Header.Get("Location"), "0", propfind("<current-user-principal/>"))
	if len(ms.Responses) != 1 || len(ms.Responses[0].Propstat) == 0 {
		out.failure = fmt.Sprintf("no principal: %+v", ms)
		return out
	}
	principal := ms.Responses[0].Propstat[0].Prop.Principal.Href
	ms, _ = send("PROPFIND", principal, "0", propfind("<CAL:calendar-home-set/><displayname/>"))
	if len(ms.Responses) != 1 || len(ms.Responses[0].Propstat) == 0 {
		out.failure = fmt.Sprintf("no calendar home: %+v", ms)
		return out
	}
	home := ms.Responses[0].Propstat[0].Prop.Home.Href
	ms, _ = send("PROPFIND", home, "1", propfind("<resourcetype/><displayname/><ICAL:calendar-color/><CAL:calendar-description/><CAL:supported-calendar-component-set/><current-user-privilege-set/><sync-token/>"))
	var calendars []string
	for _, r := range ms.Responses {
		for _, ps := range r.Propstat {
			if ps.Prop.ResourceType.Calendar != nil {
				calendars = append(calendars, r.Href)
			}
		}
	}

	for _, cal := range calendars {
		send("PROPFIND", cal, "0", propfind("<CAL:max-resource-size/><supported-report-set/><CS:getctag/><sync-token/>"))
		var listing davMultistatus
		if d.pastDays > 0 {
			start := d.now.AddDate(0, 0, -d.pastDays).UTC().Format("20060102T150405Z")
			listing, _ = send("REPORT", cal, "1", `<?xml version="1.0" encoding="UTF-8"?><CAL:calendar-query xmlns="DAV:" xmlns:CAL="urn:ietf:params:xml:ns:caldav"><prop><getetag/></prop>`+
				`<CAL:filter><CAL:comp-filter name="VCALENDAR"><CAL:comp-filter name="VEVENT"><CAL:time-range start="`+start+`"/></CAL:comp-filter></CAL:comp-filter></CAL:filter></CAL:calendar-query>`)
		} else {
			listing, _ = send("REPORT", cal, "0", `<?xml version="1.0" encoding="UTF-8"?><sync-collection xmlns="DAV:"><sync-token/><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>`)
		}
		for _, r := range listing.Responses {
			if r.Href != cal {
				out.listed[cal] = append(out.listed[cal], r.Href)
			}
		}
		hrefs := out.listed[cal]
		for i := 0; i < len(hrefs); i += 10 {
			var body strings.Builder
			body.WriteString(`<?xml version="1.0" encoding="UTF-8"?><CAL:calendar-multiget xmlns="DAV:" xmlns:CAL="urn:ietf:params:xml:ns:caldav"><prop><getcontenttype/><getetag/><CAL:schedule-tag/><CAL:calendar-data/></prop>`)
			for _, h := range hrefs[i:min(i+10, len(hrefs))] {
				body.WriteString("<href>" + h + "</href>")
			}
			body.WriteString("</CAL:calendar-multiget>")
			got, _ := send("REPORT", cal, "", body.String())
			for _, r := range got.Responses {
				for _, ps := range r.Propstat {
					if strings.Contains(ps.Prop.CalendarData, "BEGIN:VEVENT") && ps.Prop.ETag != "" {
						out.fetched[cal]++
					}
				}
			}
		}
		if out.failure != "" {
			return out
		}
	}
	return out
}

// syncAtOnce runs syncs at the same time and returns what each did.
func syncAtOnce(syncs ...davx5) []synced {
	out := make([]synced, len(syncs))
	var wg sync.WaitGroup
	for i, d := range syncs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = d.sync()
		}()
	}
	wg.Wait()
	return out
}

// events counts the events a sync listed and fetched.
func (s synced) events() (listed, fetched int) {
	for cal, hrefs := range s.listed {
		listed += len(hrefs)
		fetched += s.fetched[cal]
	}
	return listed, fetched
}

// checkSynced fails the test when a sync failed or fetched fewer events
// than it listed.
func checkSynced(t *testing.T, name string, s synced) {
	t.Helper()
	if s.failure != "" {
		t.Errorf("%s: after %d requests: %s", name, s.requests, s.failure)
	}
	for cal, hrefs := range s.listed {
		if s.fetched[cal] != len(hrefs) {
			t.Errorf("%s: %s listed %d events, fetched %d", name, cal, len(hrefs), s.fetched[cal])
		}
	}
	if listed, _ := s.events(); listed == 0 {
		t.Errorf("%s listed nothing", name)
	}
}
