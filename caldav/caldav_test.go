package caldav_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/emersion/go-ical"
	"github.com/emersion/go-webdav"
	webcaldav "github.com/emersion/go-webdav/caldav"

	"github.com/koredyne/schedule/caldav"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// now is the gateway's clock in every test: a Tuesday in December 2026.
var now = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// gateway is a running gateway over a business with a demo.
type gateway struct {
	t     testing.TB
	srv   *httptest.Server
	store *models.Store
	h     *caldav.Handler
	biz   *models.Business
	token string // an API token of the business
}

func newGateway(t testing.TB, d modelstest.Database, slug string, kind engine.Kind, back, ahead int) *gateway {
	t.Helper()
	ctx := context.Background()
	store := models.NewStore(d.DB, func() time.Time { return now })
	st, _ := demo.ByKind(kind, engine.DateOf(now))
	b, err := models.CreateBusiness(ctx, d.DB, slug, st.Business)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
		t.Fatal(err)
	}
	tok, _, err := models.CreateToken(ctx, d.DB, b.ID, models.ReadOnly, "caldav", "")
	if err != nil {
		t.Fatal(err)
	}
	h := caldav.NewHandler(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	h.Back, h.Ahead = back, ahead
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &gateway{t: t, srv: srv, store: store, h: h, biz: b, token: tok}
}

// write changes the business through the guarded write.
func (g *gateway) write(fn func(e *models.Edit) error) {
	g.t.Helper()
	if _, err := g.store.Write(context.Background(), g.biz.ID, false, fn); err != nil {
		g.t.Fatal(err)
	}
}

// do sends a request with the business's credentials.
func (g *gateway) do(method, path, body string, header ...string) *http.Response {
	g.t.Helper()
	req, _ := http.NewRequest(method, g.srv.URL+path, strings.NewReader(body))
	req.SetBasicAuth(g.biz.Slug, g.token)
	if body != "" {
		req.Header.Set("Content-Type", "application/xml; charset=utf-8")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	return resp
}

func read(t testing.TB, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// client is go-webdav's CalDAV client, an independent implementation of the
// protocol, signed in as the business.
func (g *gateway) client() *webcaldav.Client {
	g.t.Helper()
	c, err := webcaldav.NewClient(webdav.HTTPClientWithBasicAuth(http.DefaultClient, g.biz.Slug, g.token), g.srv.URL+"/caldav/")
	if err != nil {
		g.t.Fatal(err)
	}
	return c
}

// canonical writes a parsed calendar as sorted lines, so two calendars
// compare by content, not by byte layout.
func canonical(t *testing.T, data []byte) string {
	t.Helper()
	cal, err := ical.NewDecoder(bytes.NewReader(data)).Decode()
	if err != nil {
		t.Fatalf("not valid iCalendar: %v\n%s", err, data)
	}
	var lines []string
	var walk func(prefix string, c *ical.Component)
	walk = func(prefix string, c *ical.Component) {
		id := c.Name
		if uid := c.Props.Get("UID"); uid != nil {
			id += "[" + uid.Value + "]"
		} else if ds := c.Props.Get("DTSTART"); ds != nil && c.Name != ical.CompEvent {
			id += "[" + ds.Value + "]"
		}
		prefix += "/" + id
		for name, props := range c.Props {
			for _, p := range props {
				var params []string
				for k, v := range p.Params {
					params = append(params, k+"="+strings.Join(v, ","))
				}
				sort.Strings(params)
				lines = append(lines, fmt.Sprintf("%s %s;%s:%s", prefix, name, strings.Join(params, ";"), p.Value))
			}
		}
		for _, child := range c.Children {
			walk(prefix, child)
		}
	}
	walk("", cal.Component)
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestGoldenFeeds renders calendars of the clinic demo (Europe/Berlin) and
// compares them, parsed, with testdata/: two weeks of the whole clinic, and
// the calendar of a night nurse whose one shift falls in the spring-forward
// gap. Refresh with go test ./caldav -update.
func TestGoldenFeeds(t *testing.T) {
	g := newGateway(t, modelstest.SQLite(t), "spree", engine.Clinic, 0, 18)
	var nurse int64
	g.write(func(e *models.Edit) error {
		nurse = e.NewID()
		class := e.NewID()
		e.State.Staff = append(e.State.Staff, engine.Staff{ID: nurse, Name: "Nina Nacht"})
		e.State.Classes = append(e.State.Classes, engine.Class{ID: class, ActivityID: e.State.Activities[0].ID, StaffIDs: []int64{nurse}})
		// 02:30 on 28 March 2027 does not exist in Berlin: the clocks jump
		// from 02:00 to 03:00.
		e.State.OneOffs = append(e.State.OneOffs, engine.OneOff{ID: e.NewID(), ClassID: class, RoomID: e.State.Rooms[0].ID,
			Date: engine.MustDate(2027, 3, 28), Start: engine.MustTime("02:30"), End: engine.MustTime("04:00"), Label: "Night shift"})
		return nil
	})
	sn, err := g.store.Snapshot(context.Background(), g.biz.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	nurse = sn.State.Staff[len(sn.State.Staff)-1].ID
	g.h.Ahead = 1
	clinic := read(t, get(t, g.feed("all"), ""))
	checkGolden(t, "clinic-feed.ics", clinic)
	g.h.Ahead = 18
	night := read(t, get(t, g.feed(models.CalendarOf("staff", nurse)), ""))
	checkGolden(t, "night-shift.ics", night)

	// An event's ETag is the digest of what it is written from, so a change
	// to how that is written changes no ETag by itself: calendar apps would
	// keep the old bytes. The bytes of these feeds are pinned to the render
	// version every ETag holds; writing them differently fails here until
	// renderVersion (render.go) is bumped and the new digest pinned for it.
	pinned := map[int]string{1: "c984c26d608a31830c08a04f47af86813171b01c085464f9c95251273cd7cfd4"}
	sum := sha256.Sum256([]byte(clinic + night))
	if got := hex.EncodeToString(sum[:]); pinned[caldav.RenderVersion] != got {
		t.Errorf("the feeds are written otherwise than at render version %d: bump renderVersion in render.go and pin %s for the new version", caldav.RenderVersion, got)
	}

	// The gap: the shift is published at the instant RFC 5545 gives 02:30
	// (read with the offset before the gap: 01:30 UTC), written 03:30 CEST.
	cal, err := ical.NewDecoder(strings.NewReader(night)).Decode()
	if err != nil {
		t.Fatal(err)
	}
	events := cal.Events()
	if len(events) != 1 {
		t.Fatalf("%d events, want the one shift", len(events))
	}
	if got := events[0].Props.Get(ical.PropDateTimeStart).Value; got != "20270328T033000" {
		t.Errorf("DTSTART %s, want the valid local time 20270328T033000", got)
	}
	start, err := events[0].DateTimeStart(nil)
	if err != nil || !start.Equal(time.Date(2027, 3, 28, 1, 30, 0, 0, time.UTC)) {
		t.Errorf("start %v (%v), want 01:30 UTC", start, err)
	}
}

func checkGolden(t *testing.T, name, body string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./caldav -update)", err)
	}
	if got, want := canonical(t, []byte(body)), canonical(t, want); got != want {
		t.Errorf("%s differs from %s:\n%s", name, golden, diffLines(got, want))
	}
	if !strings.Contains(body, "\r\n") || strings.Contains(strings.ReplaceAll(body, "\r\n", ""), "\n") {
		t.Errorf("%s: lines must end with CRLF", name)
	}
}

// feed returns the .ics URL of one of the business's calendars.
func (g *gateway) feed(calendar string) string {
	g.t.Helper()
	tok, err := models.Feed(context.Background(), g.store.DB, g.biz.ID, calendar)
	if err != nil {
		g.t.Fatal(err)
	}
	return g.srv.URL + "/ics/" + tok + ".ics"
}

func get(t *testing.T, url, ifNoneMatch string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func diffLines(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	inW := map[string]bool{}
	for _, l := range w {
		inW[l] = true
	}
	inG := map[string]bool{}
	var out []string
	for _, l := range g {
		inG[l] = true
		if !inW[l] {
			out = append(out, "+ "+l)
		}
	}
	for _, l := range w {
		if !inG[l] {
			out = append(out, "- "+l)
		}
	}
	if len(out) > 30 {
		out = append(out[:30], fmt.Sprintf("… %d more", len(out)-30))
	}
	return strings.Join(out, "\n")
}
