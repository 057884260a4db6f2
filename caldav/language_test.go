package caldav_test

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/emersion/go-ical"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestFeedsInEachLanguage: the events of a business in Arabic, Turkish or
// Russian say what they say in that language, DESCRIPTION with RFC 5545's
// LANGUAGE parameter (§3.2.10, which §3.8.1.5 allows on DESCRIPTION); the
// feed is valid UTF-8 in every 75-octet folded line; a change of language
// changes every event's ETag and the collection's sync token. The Arabic
// feed is pinned as a golden file.
func TestFeedsInEachLanguage(t *testing.T) {
	english := []string{"Coach:", "Coaches:", "Package:", "One-off", "Moved from", "Cancelled", "(W"}
	for _, lang := range []string{"ar", "tr", "ru"} {
		t.Run(lang, func(t *testing.T) {
			g := newGateway(t, modelstest.SQLite(t), "feed-"+lang, engine.Gym, 0, 1)
			g.write(func(e *models.Edit) error {
				e.State.Business.Locale = engine.Locale{Language: lang}
				// A one-off, a move and a cancellation, so that every line an
				// event's description can hold is written.
				st := &e.State
				ct := st.ClassTimes[0]
				st.OneOffs = append(st.OneOffs, engine.OneOff{ID: e.NewID(), ClassID: st.Classes[0].ID, RoomID: ct.RoomID,
					Date: engine.MustDate(2026, 12, 4), Start: engine.MustTime("23:00"), End: engine.MustTime("23:30"), Label: "Assessment"})
				return nil
			})
			body := read(t, get(t, g.feed("all"), ""))
			if !utf8.ValidString(body) {
				t.Fatal("the feed is not valid UTF-8")
			}
			for i, line := range strings.Split(body, "\r\n") {
				if len(line) > 75 {
					t.Errorf("line %d is %d octets, more than 75", i+1, len(line))
				}
				if !utf8.ValidString(line) {
					t.Errorf("line %d splits a character across the fold: %q", i+1, line)
				}
			}
			cal := decode(t, body)
			events := cal.Events()
			if len(events) < 10 {
				t.Fatalf("%d events", len(events))
			}
			described := 0
			for _, ev := range events {
				p := ev.Props.Get(ical.PropDescription)
				if p == nil {
					continue
				}
				text, _ := p.Text()
				if text == "" {
					continue
				}
				described++
				if got := p.Params.Get(ical.ParamLanguage); got != lang {
					t.Errorf("DESCRIPTION;LANGUAGE=%q, want %s", got, lang)
				}
				for _, w := range english {
					if strings.Contains(text, w) {
						t.Errorf("English %q left in %q", w, text)
					}
				}
				if p := ev.Props.Get(ical.PropSummary); p != nil && p.Params.Get(ical.ParamLanguage) != "" {
					t.Error("SUMMARY, the business's own name, says a language")
				}
			}
			if described < 10 {
				t.Errorf("only %d events have a description", described)
			}
			if lang == "ar" {
				checkGolden(t, "gym-feed-ar.ics", body)
			}
		})
	}
}

// TestLanguageChangesETagsAndSyncToken: the next revision after a change of
// language answers new ETags and a new sync token.
func TestLanguageChangesETagsAndSyncToken(t *testing.T) {
	g := newGateway(t, modelstest.SQLite(t), "etags", engine.Gym, 0, 1)
	etags := func() map[string]string {
		resp := g.do("PROPFIND", "/caldav/"+g.biz.Slug+"/calendars/all/", `<?xml version="1.0"?><propfind xmlns="DAV:"><prop><getetag/><sync-token/></prop></propfind>`, "Depth", "1")
		body := read(t, resp)
		if resp.StatusCode != http.StatusMultiStatus {
			t.Fatalf("PROPFIND: %s\n%s", resp.Status, body)
		}
		out := map[string]string{}
		for _, r := range strings.Split(body, "<D:response>")[1:] {
			href := between(r, "<D:href>", "</D:href>")
			out[href] = between(r, "<D:getetag>", "</D:getetag>") + between(r, "<D:sync-token>", "</D:sync-token>")
		}
		return out
	}
	before := etags()
	if len(before) < 10 {
		t.Fatalf("%d resources", len(before))
	}
	g.write(func(e *models.Edit) error { e.State.Business.Locale.Language = "ru"; return nil })
	after := etags()
	for href, tag := range before {
		if after[href] == tag {
			t.Errorf("%s kept %s after the language changed", href, tag)
		}
	}
}

func decode(t *testing.T, body string) *ical.Calendar {
	t.Helper()
	cal, err := ical.NewDecoder(strings.NewReader(body)).Decode()
	if err != nil {
		t.Fatal(err)
	}
	return cal
}

func between(s, from, to string) string {
	_, s, _ = strings.Cut(s, from)
	s, _, _ = strings.Cut(s, to)
	return s
}

// TestErrorsInTheAskedLanguage: the gateway's error messages follow the
// request's Accept-Language when the catalogues have it, English otherwise;
// the status and the DAV precondition never change.
func TestErrorsInTheAskedLanguage(t *testing.T) {
	g := newGateway(t, modelstest.SQLite(t), "daverr", engine.Gym, 0, 1)
	const propfind = `<?xml version="1.0"?><propfind xmlns="DAV:"><prop><getetag/></prop></propfind>`
	cases := []struct{ lang, want string }{
		{"", "Depth: infinity is not served; use 0 or 1"},
		{"fr", "Depth: infinity is not served; use 0 or 1"},
		{"ar", "لا يُخدم Depth: infinity؛ استخدم 0 أو 1"},
		{"ru-RU, ru;q=0.9", "Depth: infinity не обслуживается; используйте 0 или 1"},
	}
	for _, c := range cases {
		header := []string{"Depth", "infinity"}
		if c.lang != "" {
			header = append(header, "Accept-Language", c.lang)
		}
		resp := g.do("PROPFIND", "/caldav/"+g.biz.Slug+"/calendars/all/", propfind, header...)
		body := read(t, resp)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "propfind-finite-depth") {
			t.Errorf("%q: %s %s", c.lang, resp.Status, body)
		}
		if got := between(body, "<D:responsedescription>", "</D:responsedescription>"); got != c.want {
			t.Errorf("%q: got %q, want %q", c.lang, got, c.want)
		}
	}
}
