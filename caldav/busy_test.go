package caldav_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	webcaldav "github.com/emersion/go-webdav/caldav"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestTimeOffIsBusy records time off for a clinic's staff member (Europe/
// Berlin): whole days, and one from an afternoon over the night the clocks
// spring forward (2027-03-28) to a morning. Their own calendar, by feed and
// by CalDAV, shows each as an OPAQUE event (DATE values for whole days,
// TZID times otherwise), and its ETag, ctag and feed ETag change when the
// time off does; the business's calendar, a room's and another staff
// member's do not list it, and the reason is in no calendar.
func TestTimeOffIsBusy(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			g := newGateway(t, d, "busy", engine.Clinic, 0, 20)
			ctx := context.Background()
			sn, err := g.store.Snapshot(ctx, g.biz.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			berlin := sn.State.Business.Location
			if berlin.String() != "Europe/Berlin" || len(sn.State.Staff) < 2 || len(sn.State.Rooms) == 0 {
				t.Fatalf("the clinic demo is in %s with %d staff and %d rooms", berlin, len(sn.State.Staff), len(sn.State.Rooms))
			}
			me, other := sn.State.Staff[0], sn.State.Staff[1]
			mine, theirs := fmt.Sprintf("staff-%d", me.ID), fmt.Sprintf("staff-%d", other.ID)
			room := fmt.Sprintf("room-%d", sn.State.Rooms[0].ID)
			date := func(s string) engine.Date {
				d, err := engine.ParseDate(s)
				if err != nil {
					t.Fatal(err)
				}
				return d
			}
			clock := func(h, m int) engine.LocalTime {
				l, err := engine.NewLocalTime(h, m)
				if err != nil {
					t.Fatal(err)
				}
				return l
			}
			home := "/caldav/" + g.biz.Slug + "/calendars/"
			ctag := func(cal string) string {
				body := read(t, g.do("PROPFIND", home+cal+"/", `<D:propfind xmlns:D="DAV:" xmlns:CS="http://calendarserver.org/ns/"><D:prop><CS:getctag/></D:prop></D:propfind>`, "Depth", "0"))
				_, tag, ok := strings.Cut(body, "getctag")
				if !ok {
					t.Fatalf("no ctag in %s", body)
				}
				return tag
			}
			feedTag := func(cal string) string {
				resp := get(t, g.feed(cal), "")
				read(t, resp)
				return resp.Header.Get("ETag")
			}
			beforeCtag, beforeFeed := ctag(mine), feedTag(mine)

			var whole, partial int64
			g.write(func(e *models.Edit) error {
				e.AllowNeedsCover = true
				whole, partial = e.NewID(), e.NewID()
				e.State.TimeOffs = append(e.State.TimeOffs,
					engine.TimeOff{ID: whole, StaffID: me.ID, From: date("2026-12-14"), To: date("2026-12-16"), Reason: "Private matter"},
					engine.TimeOff{ID: partial, StaffID: me.ID, From: date("2027-03-27"), FromTime: clock(14, 0), To: date("2027-03-29"), ToTime: clock(10, 30), Reason: "Private matter"})
				return nil
			})
			if ctag(mine) == beforeCtag || feedTag(mine) == beforeFeed {
				t.Error("the staff member's ctag or feed ETag did not change with their time off")
			}
			// The ids the store gave them.
			if sn, err = g.store.Snapshot(ctx, g.biz.ID, -1); err != nil {
				t.Fatal(err)
			}
			for _, o := range sn.State.TimeOffs {
				if o.FromTime == 0 {
					whole = o.ID
				} else {
					partial = o.ID
				}
			}

			// The feeds: the staff member's lists both, nobody else's any.
			for _, cal := range []string{mine, theirs, "all", room} {
				body := read(t, get(t, g.feed(cal), ""))
				if strings.Contains(body, "Private matter") {
					t.Errorf("%s shows the reason", cal)
				}
				parsed, err := ical.NewDecoder(strings.NewReader(body)).Decode()
				if err != nil {
					t.Fatal(err)
				}
				found := map[string]*ical.Event{}
				for _, ev := range parsed.Events() {
					uid, _ := ev.Props.Get("UID").Text()
					if strings.HasPrefix(uid, "t-") {
						found[strings.SplitN(uid, "@", 2)[0]] = &ev
					}
				}
				if cal != mine {
					if len(found) != 0 {
						t.Errorf("%s lists time off: %v", cal, found)
					}
					continue
				}
				w, p := found[fmt.Sprintf("t-%d", whole)], found[fmt.Sprintf("t-%d", partial)]
				if w == nil || p == nil || len(found) != 2 {
					t.Fatalf("%s lists the time off %v", cal, found)
				}
				for _, ev := range []*ical.Event{w, p} {
					if v := ev.Props.Get("TRANSP"); v == nil || v.Value != "OPAQUE" {
						t.Errorf("%s: TRANSP %v", cal, v)
					}
					if s, _ := ev.Props.Get("SUMMARY").Text(); s != "Time off" {
						t.Errorf("%s: SUMMARY %q", cal, s)
					}
					if ev.Props.Get("DESCRIPTION") != nil {
						t.Errorf("%s: a time off has a DESCRIPTION", cal)
					}
				}
				if s, e := w.Props.Get("DTSTART"), w.Props.Get("DTEND"); s.Value != "20261214" || s.Params.Get("VALUE") != "DATE" || e.Value != "20261217" || e.Params.Get("VALUE") != "DATE" {
					t.Errorf("whole days: DTSTART %+v DTEND %+v", s, e)
				}
				s, e := p.Props.Get("DTSTART"), p.Props.Get("DTEND")
				if s.Value != "20270327T140000" || s.Params.Get("TZID") != "Europe/Berlin" || e.Value != "20270329T103000" || e.Params.Get("TZID") != "Europe/Berlin" {
					t.Errorf("partial days: DTSTART %+v DTEND %+v", s, e)
				}
				start, err := p.DateTimeStart(berlin)
				end, err2 := p.DateTimeEnd(berlin)
				if err != nil || err2 != nil {
					t.Fatal(err, err2)
				}
				// 13:00Z on the 27th (CET) to 08:30Z on the 29th (CEST): the
				// night of the 28th is an hour short.
				if got := end.Sub(start); !start.Equal(time.Date(2027, 3, 27, 13, 0, 0, 0, time.UTC)) || got != 43*time.Hour+30*time.Minute {
					t.Errorf("partial days: from %s for %s", start.UTC(), got)
				}
			}

			// CalDAV: the resource is in the staff member's calendar and no
			// other, and a time-range query finds it there alone.
			name := fmt.Sprintf("t-%d.ics", partial)
			resp := g.do("GET", home+mine+"/"+name, "")
			body, etag := read(t, resp), resp.Header.Get("ETag")
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, "TRANSP:OPAQUE") || !strings.Contains(body, "BEGIN:VTIMEZONE") || strings.Contains(body, "Private matter") {
				t.Errorf("GET %s: %d %s", name, resp.StatusCode, body)
			}
			for _, cal := range []string{theirs, "all", room} {
				if resp := g.do("GET", home+cal+"/"+name, ""); resp.StatusCode != http.StatusNotFound {
					read(t, resp)
					t.Errorf("GET %s in %s: %d", name, cal, resp.StatusCode)
				}
			}
			query := func(cal string) []string {
				objs, err := g.client().QueryCalendar(ctx, home+cal+"/", &webcaldav.CalendarQuery{
					CompRequest: webcaldav.CalendarCompRequest{Name: "VCALENDAR", AllProps: true, AllComps: true},
					CompFilter: webcaldav.CompFilter{Name: "VCALENDAR", Comps: []webcaldav.CompFilter{{Name: "VEVENT",
						Start: time.Date(2027, 3, 28, 0, 0, 0, 0, berlin), End: time.Date(2027, 3, 29, 0, 0, 0, 0, berlin)}}},
				})
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, o := range objs {
					if strings.HasPrefix(o.Path[strings.LastIndex(o.Path, "/")+1:], "t-") {
						out = append(out, o.Path)
					}
				}
				return out
			}
			if got := query(mine); len(got) != 1 || !strings.HasSuffix(got[0], name) {
				t.Errorf("a query of %s on the 28th finds %v", mine, got)
			}
			for _, cal := range []string{theirs, "all"} {
				if got := query(cal); len(got) != 0 {
					t.Errorf("a query of %s finds %v", cal, got)
				}
			}

			// Shortening the time off changes its ETag and the ctag.
			tagged := ctag(mine)
			g.write(func(e *models.Edit) error {
				for i := range e.State.TimeOffs {
					if e.State.TimeOffs[i].ID == partial {
						e.State.TimeOffs[i].ToTime = clock(9, 0)
					}
				}
				return nil
			})
			resp = g.do("GET", home+mine+"/"+name, "")
			if body := read(t, resp); resp.Header.Get("ETag") == etag || !strings.Contains(body, "DTEND;TZID=Europe/Berlin:20270329T090000") {
				t.Errorf("after the edit: ETag %s, was %s; %s", resp.Header.Get("ETag"), etag, body)
			}
			if ctag(mine) == tagged {
				t.Error("the ctag did not change with the time off")
			}
		})
	}
}

// TestTimeOffInEachLanguage: a time off's summary is in the business's
// language, with RFC 5545's LANGUAGE parameter (§3.2.10), and changing
// the language changes the event's ETag (the staff calendar's ctag).
func TestTimeOffInEachLanguage(t *testing.T) {
	want := map[string]string{"ar": "إجازة", "tr": "İzin", "ru": "Отсутствие"}
	for lang, summary := range want {
		t.Run(lang, func(t *testing.T) {
			g := newGateway(t, modelstest.SQLite(t), "off-"+lang, engine.Gym, 0, 2)
			sn, err := g.store.Snapshot(context.Background(), g.biz.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			coach := sn.State.Staff[0]
			g.write(func(e *models.Edit) error {
				e.AllowNeedsCover = true
				e.State.TimeOffs = append(e.State.TimeOffs, engine.TimeOff{ID: e.NewID(), StaffID: coach.ID,
					From: engine.MustDate(2026, 12, 8), To: engine.MustDate(2026, 12, 8), FromTime: engine.MustTime("13:00"), Reason: "Dentist"})
				return nil
			})
			feed := g.feed(fmt.Sprintf("staff-%d", coach.ID))
			english := get(t, feed, "")
			read(t, english)
			g.write(func(e *models.Edit) error {
				e.State.Business.Locale = engine.Locale{Language: lang}
				return nil
			})
			resp := get(t, feed, "")
			body := read(t, resp)
			if resp.Header.Get("ETag") == english.Header.Get("ETag") {
				t.Error("the feed's ETag did not change with the language")
			}
			found := 0
			for _, ev := range decode(t, body).Events() {
				if uid, _ := ev.Props.Get(ical.PropUID).Text(); !strings.HasPrefix(uid, "t-") {
					continue
				}
				found++
				p := ev.Props.Get(ical.PropSummary)
				if text, _ := p.Text(); text != summary || p.Params.Get(ical.ParamLanguage) != lang {
					t.Errorf("SUMMARY;LANGUAGE=%s:%s, want %s", p.Params.Get(ical.ParamLanguage), text, summary)
				}
			}
			if found != 1 || strings.Contains(body, "Dentist") {
				t.Errorf("%d time off events; reason shown: %v", found, strings.Contains(body, "Dentist"))
			}
		})
	}
}
