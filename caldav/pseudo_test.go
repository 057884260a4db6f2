package caldav_test

import (
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/emersion/go-ical"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/locale/localetest"
	"github.com/koredyne/schedule/models/modelstest"
)

func init() { localetest.Register() }

// readText is the text of a calendar people read: the values of its
// text properties (names, descriptions, places, categories).
func readText(t *testing.T, body string) string {
	t.Helper()
	cal := decode(t, body)
	var b strings.Builder
	var walk func(c *ical.Component)
	walk = func(c *ical.Component) {
		for _, name := range []string{ical.PropSummary, ical.PropDescription, ical.PropLocation, ical.PropCategories, ical.PropComment, "X-WR-CALNAME", "X-WR-CALDESC"} {
			for _, p := range c.Props.Values(name) {
				text, err := p.Text()
				if err != nil {
					text = p.Value
				}
				b.WriteString(text + "\n")
			}
		}
		for _, child := range c.Children {
			walk(child)
		}
	}
	walk(cal.Component)
	return b.String()
}

var displayName = regexp.MustCompile(`<D:displayname>([^<]*)</D:displayname>`)

// TestFeedPseudoLocale: the gym's calendars in the pseudo-locale (every
// catalogue message accented and bracketed) — a cancellation, a move, a
// one-off and a coach away among their events — and the calendars' names
// say none of the English catalogue's words but in the business's own
// names: every word of an event comes from the catalogue, from CLDR or
// from the business.
func TestFeedPseudoLocale(t *testing.T) {
	g := newGateway(t, modelstest.SQLite(t), "pseudo", engine.Gym, 0, 1)
	english := readText(t, read(t, get(t, g.feed("all"), "")))
	var data string
	g.write(func(e *models.Edit) error {
		st := &e.State
		st.Business.Locale = engine.Locale{Language: localetest.Name}
		e.AllowNeedsCover = true
		tt, err := engine.New(*st)
		if err != nil {
			return err
		}
		day := engine.DateOf(now).AddDays(1)
		var ss []engine.Session
		for _, s := range tt.Day(day) {
			if len(s.StaffIDs) > 0 && s.OneOffID == 0 {
				ss = append(ss, s)
			}
		}
		if len(ss) < 3 {
			t.Fatalf("%d sessions on %s", len(ss), day)
		}
		late, later := engine.MustTime("23:00"), engine.MustTime("23:30")
		st.Changes = append(st.Changes,
			engine.DayChange{Ref: ss[0].Ref(), Cancelled: true, Note: "Pool closed"},
			engine.DayChange{Ref: ss[1].Ref(), Date: day.AddDays(1), Start: &late, End: &later})
		st.TimeOffs = append(st.TimeOffs, engine.TimeOff{ID: e.NewID(), StaffID: ss[2].StaffIDs[0], From: day, To: day, Reason: "Dentist"})
		ct := st.ClassTimes[0]
		st.OneOffs = append(st.OneOffs, engine.OneOff{ID: e.NewID(), ClassID: st.Classes[0].ID, RoomID: ct.RoomID,
			Date: day.AddDays(2), Start: engine.MustTime("23:00"), End: engine.MustTime("23:30"), Label: "Assessment"})
		buf, err := json.Marshal(st)
		data = string(buf) + " " + g.biz.Name + " " + g.biz.Slug
		return err
	})
	if left := localetest.Leftover(english, data); len(left) < 3 {
		t.Fatalf("the English feed has only %q of the catalogue's words: the check finds nothing", left)
	}
	text := readText(t, read(t, get(t, g.feed("all"), "")))
	marked := func(s string) string { return strings.Trim(localetest.Accent(s), "[]") }
	for _, want := range []string{"Pool closed", "Assessment", marked("Needs cover"), marked("Cancelled"), marked("One-off"), marked("Moved from"), marked("time off")} {
		if !strings.Contains(text, want) {
			t.Errorf("the feed does not say %q", want)
		}
	}
	if left := localetest.Leftover(text, data); len(left) > 0 {
		t.Errorf("English words left in the events: %q", left)
	}

	resp := g.do("PROPFIND", "/caldav/"+g.biz.Slug+"/calendars/", `<?xml version="1.0"?><propfind xmlns="DAV:"><prop><displayname/></prop></propfind>`, "Depth", "1")
	body := read(t, resp)
	if resp.StatusCode != http.StatusMultiStatus {
		t.Fatalf("PROPFIND: %s\n%s", resp.Status, body)
	}
	var names []string
	for _, m := range displayName.FindAllStringSubmatch(body, -1) {
		names = append(names, html.UnescapeString(m[1]))
	}
	if len(names) < 3 {
		t.Fatalf("%d calendar names in\n%s", len(names), body)
	}
	if left := localetest.Leftover(strings.Join(names, "\n"), data); len(left) > 0 {
		t.Errorf("English words left in the calendars' names %q: %q", names, left)
	}
}
