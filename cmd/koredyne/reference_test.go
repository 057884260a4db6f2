package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/reference/referencetest"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestImportRealReferenceExports moves the reference system's own exports of
// its three demos over with `koredyne import koredyne`, on SQLite and
// PostgreSQL, and reads them back from a running server with the GraphQL
// `days` query: every date of the twelve weeks the reference resolved must
// hold the same real sessions (times, room, activity, staff, cancelled,
// moved, packages).
func TestImportRealReferenceExports(t *testing.T) {
	fixtures := filepath.Join("..", "..", "engine", "reference", "testdata", "reference")
	for _, db := range modelstest.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			env := map[string]string{}
			var where []string
			if db.Name == "postgres" {
				env["DATABASE_URL"] = db.DSN
			} else {
				where = []string{"--data", filepath.Dir(db.DSN)}
			}
			main := func(args ...string) (int, string, string) {
				var out, errs bytes.Buffer
				code := Main(context.Background(), append(args, where...), func(k string) string { return env[k] }, &out, &errs)
				return code, out.String(), errs.String()
			}
			for _, demo := range []string{"gym", "clinic", "office"} {
				export := filepath.Join(fixtures, "export-"+demo+".json")
				if code, _, errs := main("import", "koredyne", export, "--business", demo, "--create"); code != 2 || !strings.Contains(errs, "--time-zone") {
					t.Errorf("%s: --create without --time-zone: exit %d %q", demo, code, errs)
				}
				code, out, errs := main("import", "koredyne", export, "--business", demo, "--create", "--time-zone", "UTC")
				if code != 0 || strings.Contains(out, "note:") || strings.Contains(out, "clash") {
					t.Fatalf("%s: import: exit %d\n%s%s", demo, code, out, errs)
				}
				t.Log(strings.TrimSpace(out))
			}
			s := startMain(t, env, where...)
			defer s.stop()
			for _, demo := range []string{"gym", "clinic", "office"} {
				code, token, errs := main("token", "create", "--business", demo, "--role", "read_only")
				if code != 0 {
					t.Fatalf("token create: %d %s", code, errs)
				}
				b, err := os.ReadFile(filepath.Join(fixtures, "sessions-"+demo+".json"))
				if err != nil {
					t.Fatal(err)
				}
				want, err := referencetest.Read(b)
				if err != nil {
					t.Fatal(err)
				}
				got := daysOf(t, s, strings.TrimSpace(token), want.From, want.To)
				n := 0
				for d := range want.Days {
					n += len(want.Days[d])
					if !slices.Equal(got[d], want.Days[d]) {
						t.Errorf("%s %s:\ngot\n\t%s\nwant\n\t%s", demo, d, strings.Join(got[d], "\n\t"), strings.Join(want.Days[d], "\n\t"))
					}
				}
				if len(want.Days) != 84 || n < 150 {
					t.Errorf("%s: compared %d dates, %d sessions", demo, len(want.Days), n)
				}
				if code, out, _ := main("export", "json", "--business", demo, "--out", filepath.Join(t.TempDir(), "b.json")); code != 0 {
					t.Errorf("%s: a backup of the import: %d %s", demo, code, out)
				}
			}
		})
	}
}

// daysOf asks a server for the sessions of from..to (inclusive), four weeks
// a query, and describes them as the reference's resolution does.
func daysOf(t *testing.T, s *server, token, from, to string) map[string][]string {
	t.Helper()
	const q = `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { date sessions {
		date start end cancelled room { name } class { activity { name } } staff { name }
		series { series { name } } ref { date } } } }`
	first, err := engine.ParseDate(from)
	if err != nil {
		t.Fatal(err)
	}
	last, err := engine.ParseDate(to)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for a := first; a <= last; a += 28 {
		var resp struct {
			Days []struct {
				Date     string
				Sessions []struct {
					Date, Start, End string
					Cancelled        bool
					Room             struct{ Name string }
					Class            struct{ Activity struct{ Name string } }
					Staff            []struct{ Name string }
					Series           []struct{ Series struct{ Name string } }
					Ref              *struct{ Date string }
				}
			}
		}
		data, errs := post(t, s.url, token, q, map[string]any{"from": a.String(), "to": min(a+28, last+1).String()})
		if len(errs) > 0 {
			t.Fatalf("days: %v", errs)
		}
		decodeData(t, data, &resp)
		for _, d := range resp.Days {
			var day []referencetest.Session
			for _, x := range d.Sessions {
				rs := referencetest.Session{Date: x.Date, Start: x.Start, End: x.End, Room: x.Room.Name, Activity: x.Class.Activity.Name,
					Cancelled: x.Cancelled}
				var staff []string
				for _, p := range x.Staff {
					staff = append(staff, p.Name)
				}
				rs.Staff = strings.Join(staff, ", ")
				for _, sw := range x.Series {
					rs.Packages = append(rs.Packages, sw.Series.Name)
				}
				if x.Ref != nil && x.Ref.Date != x.Date {
					rs.From = x.Ref.Date
				}
				day = append(day, rs)
			}
			out[d.Date] = referencetest.Canonical(day)
		}
	}
	return out
}
