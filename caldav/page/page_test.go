package page_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/koredyne/schedule/caldav"
	"github.com/koredyne/schedule/caldav/page"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/locale"
	"github.com/koredyne/schedule/models/modelstest"
)

// now is the clock of every test unless one says otherwise: Tuesday
// 1 December 2026, the week the demos are built around.
var now = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// site is a business holding a demo, its timetable page on a real
// loopback server, and the page's secret token.
type site struct {
	t     testing.TB
	db    modelstest.Database
	store *models.Store
	biz   *models.Business
	state engine.State // what was written
	srv   *httptest.Server
	token string
}

// newSite creates a business with the demo of kind built around the date of
// clock (changed by adjust, when given) and serves its page with the
// store's clock at clock.
func newSite(t testing.TB, d modelstest.Database, kind engine.Kind, clock time.Time, adjust func(*engine.State)) *site {
	t.Helper()
	ctx := context.Background()
	store := models.NewStore(d.DB, func() time.Time { return clock })
	st, _ := demo.ByKind(kind, engine.DateOf(clock))
	if adjust != nil {
		adjust(&st)
	}
	b, err := models.CreateBusiness(ctx, d.DB, string(kind)+"-page", st.Business)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
		t.Fatal(err)
	}
	token, err := models.Feed(ctx, d.DB, b.ID, models.TimetablePage)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(page.NewHandler(store, slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(srv.Close)
	return &site{t: t, db: d, store: store, biz: b, state: st, srv: srv, token: token}
}

// get fetches a path of the server and returns the response and its body.
func (s *site) get(path string) (*http.Response, string) {
	s.t.Helper()
	resp, err := http.Get(s.srv.URL + path)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp, string(body)
}

// page fetches the page with a query that must succeed.
func (s *site) page(query string) string {
	s.t.Helper()
	resp, body := s.get("/t/" + s.token + query)
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("GET /t/…%s: %s\n%s", query, resp.Status, body)
	}
	return body
}

// snapshot is the business's schedule as the page reads it.
func (s *site) snapshot() *models.Snapshot {
	s.t.Helper()
	sn, err := s.store.Snapshot(context.Background(), s.biz.ID, -1)
	if err != nil {
		s.t.Fatal(err)
	}
	return sn
}

// expected lists the sessions of the week from from that happen, as
// placed() writes what the page shows.
func expected(sn *models.Snapshot, from engine.Date, staff bool) []string {
	tt := sn.Timetable
	var out []string
	for d := from; d < from.AddDays(7); d++ {
		for _, s := range tt.Day(d) {
			if s.Cancelled {
				continue
			}
			class, _ := tt.Class(s.ClassID)
			activity, _ := tt.Activity(class.ActivityID)
			label := s.Label
			if label == "" {
				label = activity.Name
			}
			var names []string
			for _, id := range s.StaffIDs {
				p, _ := tt.StaffMember(id)
				names = append(names, p.Name)
			}
			if !staff {
				names = nil
			}
			out = append(out, fmt.Sprintf("%s %s–%s %s | %s | %s | %s", d, s.Start, s.End, activity.Name, label, strings.Join(names, ", "), s.Key()))
		}
	}
	slices.Sort(out)
	return out
}

// The page's own markup, read back. The date and time of a session are
// taken from the column and row it sits in, and must agree with the
// session's own data attributes.
var (
	sectionRe = regexp.MustCompile(`(?s)<section class="activity"[^>]*>\s*<h2>(.*?)</h2>(.*?)</section>`)
	rowRe     = regexp.MustCompile(`(?s)<tr data-start="([^"]*)"><th scope="row" class="start"><span class="from">([^<]*)</span>(?:<span class="span">([^<]*)</span>)?</th>(.*?)</tr>`)
	cellRe    = regexp.MustCompile(`(?s)<td data-date="([^"]*)"(?: class="idle")?>(.*?)</td>`)
	sessionRe = regexp.MustCompile(`(?s)<div class="session" data-session="([^"]*)" data-date="([^"]*)" data-start="([^"]*)" data-end="([^"]*)"><b class="label">(.*?)</b> <span class="time( usual)?">(.*?)</span>(?: <span class="staff">(.*?)</span>)?(?: <span class="moved">(.*?)</span>)?</div>`)
	dayRe     = regexp.MustCompile(`<th scope="col" data-date="([^"]*)"(?: class="idle")?>`)
)

// placed reads the sessions a page shows, in the form expected writes. It
// checks each row's head: its start, and the span it gives for paper when
// all its sessions end together (and only then), each of those sessions
// marked as leaving its own time out on paper.
func placed(t testing.TB, body string) []string {
	t.Helper()
	return placedIn(t, body, locale.Of(engine.Locale{}))
}

// placedIn is placed for a page in the locale's language.
func placedIn(t testing.TB, body string, l *locale.Locale) []string {
	t.Helper()
	var out []string
	for _, sec := range sectionRe.FindAllStringSubmatch(body, -1) {
		activity := html.UnescapeString(sec[1])
		if !strings.Contains(sec[2], `<span class="corner" aria-hidden="true">`+sec[1]+`</span>`) {
			t.Errorf("the table of %s has not its name in the corner", activity)
		}
		rows := rowRe.FindAllStringSubmatch(sec[2], -1)
		if got, want := len(rows), strings.Count(sec[2], "<tr data-start="); got != want {
			t.Errorf("%s: read %d rows of %d", activity, got, want)
		}
		for _, r := range rows {
			start := engine.MustTime(r[1])
			if got := html.UnescapeString(r[2]); got != l.Time(start) {
				t.Errorf("%s: the row of %s is headed %q", activity, r[1], got)
			}
			ends := map[string]bool{}
			for _, c := range cellRe.FindAllStringSubmatch(r[4], -1) {
				for _, s := range sessionRe.FindAllStringSubmatch(c[2], -1) {
					if s[2] != c[1] || s[3] != r[1] {
						t.Errorf("session %s says %s %s but sits in column %s, row %s", s[1], s[2], s[3], c[1], r[1])
					}
					end := engine.MustTime(s[4])
					if got, want := html.UnescapeString(s[7]), l.Span(start, end); got != want {
						t.Errorf("session %s shows the time %q, want %q", s[1], got, want)
					}
					if usual := s[6] != ""; usual != (r[3] != "") {
						t.Errorf("session %s leaves its time out on paper: %v, but its row's head gives the span %q", s[1], usual, r[3])
					}
					ends[s[4]] = true
					staff := strings.ReplaceAll(html.UnescapeString(s[8]), l.Text("list.comma", nil), ", ")
					out = append(out, fmt.Sprintf("%s %s–%s %s | %s | %s | %s", c[1], r[1], s[4], activity,
						html.UnescapeString(s[5]), staff, html.UnescapeString(s[1])))
				}
			}
			if len(ends) == 1 {
				var end string
				for e := range ends {
					end = e
				}
				want := shortSpan(start, engine.MustTime(end))
				if l.Language != "en" {
					want = l.ShortSpan(start, engine.MustTime(end))
				}
				if got := html.UnescapeString(r[3]); got != want {
					t.Errorf("%s: the row of %s, its sessions all ending at %s, is headed %q on paper, want %q", activity, r[1], end, got, want)
				}
			} else if r[3] != "" {
				t.Errorf("%s: the row of %s gives the span %q on paper though its sessions end at %v", activity, r[1], r[3], ends)
			}
		}
	}
	slices.Sort(out)
	return out
}

// shortSpan is a span as the printed timetable writes it, the half of the
// day once when both ends share it.
func shortSpan(start, end engine.LocalTime) string {
	from, to := start.Clock12(), end.Clock12()
	if strings.HasSuffix(from, to[len(to)-3:]) {
		from = strings.TrimSuffix(from, to[len(to)-3:])
	}
	return from + "–" + to
}

// sameSessions compares what a page shows with what the timetable gives.
func sameSessions(t testing.TB, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("shown but not in the timetable: %s", g)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("in the timetable but not shown: %s", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d sessions, want %d", len(got), len(want))
	}
}

// days reads the dates of a page's columns (the first table's).
func days(body string) []string {
	var out []string
	for _, m := range dayRe.FindAllStringSubmatch(body, 7) {
		out = append(out, m[1])
	}
	return out
}

// movedGymSession moves Tuesday's 06:00 boxing in the Ring to Friday 08:00,
// the gym's day off, where nothing can clash with it. It returns the
// session's key.
func movedGymSession(st *engine.State) string {
	week := engine.DateOf(now).WeekStart(time.Sunday)
	tuesday, friday := week.AddDays(2), week.AddDays(5)
	for _, ct := range st.ClassTimes {
		if ct.RoomID != 1 || ct.Weekday != time.Tuesday || ct.Start != engine.MustTime("06:00") {
			continue
		}
		for _, e := range st.Entries {
			if e.ClassTimeID == ct.ID {
				start, end := engine.MustTime("08:00"), engine.MustTime("09:00")
				ref := engine.SessionRef{Date: tuesday, ClassTimeID: ct.ID, ClassID: e.ClassID}
				st.Changes = append(st.Changes, engine.DayChange{Ref: ref, Date: friday, Start: &start, End: &end, Note: "Ring floor repairs"})
				return fmt.Sprintf("s/%s/%d/%d", tuesday, ct.ID, e.ClassID)
			}
		}
	}
	panic("the gym demo has no Tuesday 06:00 class in the Ring")
}

// TestPageShowsTheWeek renders a demo week of each kind and reads it back:
// exactly the sessions the timetable gives, cancelled ones left out, a moved
// one on the date and at the time it happens, and nothing of the clients.
func TestPageShowsTheWeek(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			for _, kind := range []engine.Kind{engine.Gym, engine.Clinic, engine.Office} {
				t.Run(string(kind), func(t *testing.T) {
					var moved string
					s := newSite(t, d, kind, now, func(st *engine.State) {
						if kind == engine.Gym {
							moved = movedGymSession(st)
						}
					})
					sn := s.snapshot()
					from := engine.DateOf(now.In(sn.State.Business.Location)).WeekStart(sn.State.Business.WeekStart)
					body := s.page("?week=" + now.Format(time.DateOnly))
					got := placed(t, body)
					want := expected(sn, from, true)
					if len(want) == 0 {
						t.Fatal("the demo week has no sessions to compare")
					}
					sameSessions(t, got, want)
					if !slices.Equal(placed(t, s.page("")), got) {
						t.Error("the page without ?week is not this week's")
					}

					cancelled := 0
					for d := from; d < from.AddDays(7); d++ {
						for _, x := range sn.Timetable.Day(d) {
							if x.Cancelled {
								cancelled++
								if strings.Contains(body, `data-session="`+x.Key()+`"`) {
									t.Errorf("cancelled session %s is on the page", x.Key())
								}
							}
						}
					}
					if kind == engine.Gym {
						if cancelled == 0 {
							t.Error("the gym week has no cancelled session to leave out")
						}
						friday := from.AddDays(5).String()
						i := slices.IndexFunc(got, func(g string) bool { return strings.HasSuffix(g, "| "+moved) })
						if i < 0 || !strings.HasPrefix(got[i], friday+" 08:00–09:00 Boxing |") {
							t.Errorf("moved session %s: got %q, want it on %s at 08:00", moved, got, friday)
						}
						if !strings.Contains(body, `<span class="moved">Moved from 1 Dec</span>`) {
							t.Error("the moved session does not say where it came from")
						}
					}

					for _, c := range s.state.Clients {
						for _, secret := range []string{c.Name, c.Email, c.Phone} {
							if secret != "" && (strings.Contains(body, secret) || strings.Contains(body, html.EscapeString(secret))) {
								t.Errorf("the page shows client data: %q", secret)
							}
						}
					}
					words := engine.Words(kind)
					for _, want := range []string{"<h1>" + words.PrintTitle + "</h1>", html.EscapeString(sn.State.Business.Name)} {
						if !strings.Contains(body, want) {
							t.Errorf("the page lacks %q", want)
						}
					}
				})
			}
		})
	}
}

// TestPagePaper checks the sheet each demo's page asks the print dialog
// for: A4 landscape for the clinic and the office, whose weeks fit it at
// 10 pt, A3 landscape for the gym's hundred sessions, and A4 for a week
// with nothing in it. TestChromium prints them and counts the pages.
func TestPagePaper(t *testing.T) {
	paper := regexp.MustCompile(`@page \{ size: (A\d) landscape; \}</style>`)
	for _, c := range []struct {
		kind  engine.Kind
		query string
		want  string
	}{
		{engine.Gym, "", "A3"},
		{engine.Clinic, "", "A4"},
		{engine.Office, "", "A4"},
		{engine.Gym, "?week=2020-01-01", "A4"},
	} {
		s := newSite(t, modelstest.SQLite(t), c.kind, now, nil)
		body := s.page(c.query)
		m := paper.FindStringSubmatch(body)
		if m == nil || m[1] != c.want {
			t.Errorf("%s%s: the page asks for %v, want %s landscape", c.kind, c.query, m, c.want)
		}
		if empty := strings.Contains(body, `<p class="empty">`); empty != (c.query != "") {
			t.Errorf("%s%s: the week is empty: %v", c.kind, c.query, empty)
		}
	}
}

// TestPageHidesStaff checks ?staff=off: the same sessions, no staff names.
func TestPageHidesStaff(t *testing.T) {
	d := modelstest.SQLite(t)
	s := newSite(t, d, engine.Clinic, now, nil)
	sn := s.snapshot()
	from := engine.MustDate(2026, 11, 30)
	shown := s.page("?week=2026-12-01")
	hidden := s.page("?week=2026-12-01&staff=off")
	sameSessions(t, placed(t, hidden), expected(sn, from, false))
	named := 0
	for _, p := range s.state.Staff {
		if strings.Contains(hidden, html.EscapeString(p.Name)) {
			t.Errorf("?staff=off shows %s", p.Name)
		}
		if strings.Contains(shown, html.EscapeString(p.Name)) {
			named++
		}
	}
	if named == 0 {
		t.Error("the page with staff shows no staff name")
	}
	if !strings.Contains(shown, `<a class="toggle" href="`+s.token+`?staff=off&amp;week=2026-11-30">Hide practitioners</a>`) {
		t.Errorf("no link hides the practitioners of the week shown")
	}
	if !strings.Contains(hidden, `<a class="toggle" href="`+s.token+`?week=2026-11-30">Show practitioners</a>`) {
		t.Errorf("no link shows the practitioners again")
	}
}

// TestPageTokens checks who gets a page: only the current timetable token;
// every other token, a rotated one included, gets 404, and the timetable
// token opens no .ics feed.
func TestPageTokens(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			s := newSite(t, d, engine.Office, now, nil)
			resp, _ := s.get("/t/" + s.token)
			headers := map[string]string{
				"Content-Type":            "text/html; charset=utf-8",
				"Content-Security-Policy": "default-src 'none'; style-src 'self' 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
				"X-Content-Type-Options":  "nosniff",
				"Referrer-Policy":         "no-referrer",
				"X-Frame-Options":         "DENY",
				"Cache-Control":           "private, max-age=60",
			}
			for k, want := range headers {
				if got := resp.Header.Get(k); got != want {
					t.Errorf("%s: got %q, want %q", k, got, want)
				}
			}

			all, err := models.Feed(ctx, d.DB, s.biz.ID, models.CalendarOf("", 0))
			if err != nil {
				t.Fatal(err)
			}
			for name, path := range map[string]string{
				"unknown token":       "/t/not-a-token",
				"empty token":         "/t/",
				"a calendar's token":  "/t/" + all,
				"token with a suffix": "/t/" + s.token + ".ics",
			} {
				resp, body := s.get(path)
				if resp.StatusCode != http.StatusNotFound {
					t.Errorf("%s: got %s, want 404", name, resp.Status)
				}
				if strings.Contains(body, "<table") {
					t.Errorf("%s: the 404 shows a timetable", name)
				}
				if path != "/t/" && resp.Header.Get("Referrer-Policy") != "no-referrer" {
					t.Errorf("%s: the 404 lets the URL leak in Referer", name)
				}
			}
			resp, _ = s.get("/t/" + s.token + "?week=2026-13-01")
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("a week that is no date: got %s, want 400", resp.Status)
			}
			post, err := http.Post(s.srv.URL+"/t/"+s.token, "text/plain", strings.NewReader("x"))
			if err != nil {
				t.Fatal(err)
			}
			post.Body.Close()
			if post.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("POST: got %s, want 405", post.Status)
			}

			// The .ics feeds do not take the page's token for a calendar.
			feeds := httptest.NewServer(caldav.NewHandler(s.store, slog.New(slog.NewTextHandler(io.Discard, nil))))
			defer feeds.Close()
			for name, tok := range map[string]string{"the timetable token": s.token, "the whole business": all} {
				ics, err := http.Get(feeds.URL + "/ics/" + tok + ".ics")
				if err != nil {
					t.Fatal(err)
				}
				ics.Body.Close()
				want := http.StatusNotFound
				if tok == all {
					want = http.StatusOK
				}
				if ics.StatusCode != want {
					t.Errorf("/ics/ with %s: got %s, want %d", name, ics.Status, want)
				}
			}

			old := s.token
			if s.token, err = models.RotateFeed(ctx, d.DB, s.biz.ID, models.TimetablePage); err != nil {
				t.Fatal(err)
			}
			if resp, _ := s.get("/t/" + old); resp.StatusCode != http.StatusNotFound {
				t.Errorf("the rotated token: got %s, want 404", resp.Status)
			}
			s.page("")
		})
	}
}

// navigation reads the links of a page to the weeks around it.
var navRe = regexp.MustCompile(`<a rel="prev" href="([^"]*)">.*?<a class="this" href="([^"]*)">.*?<a rel="next" href="([^"]*)">`)

// TestPageWeekNavigation walks across the spring and autumn clock changes
// in Berlin and New York (weeks start on Monday there): seven days a week,
// links a week apart, the sessions the timetable gives, and "this week" in
// the business's zone rather than the server's.
func TestPageWeekNavigation(t *testing.T) {
	spring, autumn := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		kind       engine.Kind
		clock      time.Time // the demo is built around it
		week       string
		first      string
		prev, next string
	}{
		{"Berlin springs forward on Sunday 29 March", engine.Clinic, spring, "2026-03-29", "2026-03-23", "2026-03-16", "2026-03-30"},
		{"Berlin falls back on Sunday 25 October", engine.Clinic, autumn, "2026-10-21", "2026-10-19", "2026-10-12", "2026-10-26"},
		{"New York springs forward on Sunday 8 March", engine.Office, spring, "2026-03-02", "2026-03-02", "2026-02-23", "2026-03-09"},
		{"New York falls back on Sunday 1 November", engine.Office, autumn, "2026-11-01", "2026-10-26", "2026-10-19", "2026-11-02"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, modelstest.SQLite(t), tc.kind, tc.clock, nil)
			body := s.page("?week=" + tc.week)
			first := mustDate(t, tc.first)
			var want []string
			for i := range 7 {
				want = append(want, first.AddDays(i).String())
			}
			if got := days(body); !slices.Equal(got, want) {
				t.Errorf("columns: got %v, want %v", got, want)
			}
			m := navRe.FindStringSubmatch(body)
			if m == nil {
				t.Fatal("the page has no week navigation")
			}
			if got, want := []string{m[1], m[2], m[3]}, []string{s.token + "?week=" + tc.prev, s.token, s.token + "?week=" + tc.next}; !slices.Equal(got, want) {
				t.Errorf("links: got %v, want %v", got, want)
			}
			sameSessions(t, placed(t, body), expected(s.snapshot(), first, true))
			if got := days(s.page("?week=" + tc.next)); len(got) == 0 || got[0] != tc.next {
				t.Errorf("the next week's columns are %v, want them from %s", got, tc.next)
			}
		})
	}

	// Late on Saturday 28 November in UTC it is already Sunday 29 November,
	// the first day of the gym's week, in Kuwait (UTC+3).
	t.Run("this week in the business's zone", func(t *testing.T) {
		late := time.Date(2026, 11, 28, 22, 0, 0, 0, time.UTC)
		s := newSite(t, modelstest.SQLite(t), engine.Gym, late, nil)
		body := s.page("")
		if got := days(body); len(got) == 0 || got[0] != "2026-11-29" {
			t.Errorf("this week starts on %v, want 2026-11-29", got)
		}
		if m := navRe.FindStringSubmatch(body); m == nil || m[1] != s.token+"?week=2026-11-22" {
			t.Errorf("the previous week is %v, want 2026-11-22", m)
		}
	})
}

func mustDate(t testing.TB, s string) engine.Date {
	t.Helper()
	d, err := engine.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// inLanguage sets a business's language.
func inLanguage(lang string) func(*engine.State) {
	return func(st *engine.State) { st.Business.Locale = engine.Locale{Language: lang} }
}

var dayNameRe = regexp.MustCompile(`<span class="name">([^<]*)</span> <span class="day">([^<]*)</span>`)

// TestPageInEachLanguage: the page of a business in Arabic, Turkish or
// Russian is in that language — lang and dir (rtl for Arabic, whose grid
// the browser lays out mirrored, the times and the first day on the
// right), the week from the language's first day, CLDR's day and month
// names, times on the language's clock in its digits — and shows exactly
// the week's sessions; none of the English words of the page is left.
func TestPageInEachLanguage(t *testing.T) {
	english := []string{"Previous week", "This week", "Next week", "Hide ", "Show ", " AM", " PM", "Training Schedule", "Moved from", "No classes", ">Sun<", ">Mon<", " Dec"}
	cases := []struct {
		lang, dir string
		first     time.Weekday
		sample    string // a time as the page writes it
	}{
		{"ar", "rtl", time.Saturday, "٦:٠٠ ص"},
		{"tr", "ltr", time.Monday, "06:00"},
		{"ru", "ltr", time.Monday, "06:00"},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			s := newSite(t, modelstest.SQLite(t), engine.Gym, now, inLanguage(c.lang))
			body := s.page("")
			sn := s.snapshot()
			l := locale.ForBusiness(sn.State.Business, "")
			if !strings.Contains(body, `<html lang="`+c.lang+`" dir="`+c.dir+`">`) {
				t.Errorf("no lang %s dir %s: %.200s", c.lang, c.dir, body)
			}
			from := engine.DateOf(now).WeekStart(c.first)
			if got := days(body); len(got) != 7 || got[0] != from.String() {
				t.Fatalf("columns %v, want the week from %s", got, from)
			}
			names := dayNameRe.FindAllStringSubmatch(body, 7)
			for i, m := range names {
				d := from.AddDays(i)
				if html.UnescapeString(m[1]) != l.WeekdayShort(d.Weekday()) || html.UnescapeString(m[2]) != l.DayMonth(d, d) {
					t.Errorf("column %d is headed %q %q, want %q %q", i, m[1], m[2], l.WeekdayShort(d.Weekday()), l.DayMonth(d, d))
				}
			}
			sameSessions(t, placedIn(t, body, l), expected(sn, from, true))
			if !strings.Contains(body, c.sample) {
				t.Errorf("no time written as %q", c.sample)
			}
			if title := l.Words(engine.Gym).PrintTitle; !strings.Contains(body, "<h1>"+title+"</h1>") {
				t.Errorf("no title %q", title)
			}
			shown := body[strings.Index(body, "</style>"):] // the stylesheet's comments are for developers
			for _, w := range english {
				if i := strings.Index(shown, w); i >= 0 {
					t.Errorf("English left on the page: %q in %q", w, shown[max(0, i-80):i+20])
				}
			}
			hidden := s.page("?staff=off")
			hidden = hidden[strings.Index(hidden, "</style>"):]
			for _, w := range english {
				if strings.Contains(hidden, w) {
					t.Errorf("English left on the page without staff: %q", w)
				}
			}
		})
	}
}
