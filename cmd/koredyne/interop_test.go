package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/reference"
	"github.com/koredyne/schedule/models"
)

// run runs a command on the SQLite database in dir.
func run(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	code = Main(context.Background(), append(args, "--data", dir), func(string) string { return "" }, &out, &errs)
	return code, out.String(), errs.String()
}

// newDatabase makes a data directory holding a migrated database, as
// `koredyne migrate up` does: the commands that read a database refuse a
// directory that holds none.
func newDatabase(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if code, _, errs := run(t, dir, "migrate", "up"); code != 0 {
		t.Fatalf("migrate up: %d %s", code, errs)
	}
	return dir
}

// storedStore opens the database in dir as a second process would.
func storedStore(t *testing.T, dir string) *models.Store {
	t.Helper()
	db, err := models.Open(context.Background(), filepath.Join(dir, "koredyne.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return models.NewStore(db, time.Now)
}

// describeDays describes every session of [from, to) by names, so that two
// timetables with different ids compare.
func describeDays(tt *engine.Timetable, from, to engine.Date) []string {
	var out []string
	for d := from; d < to; d++ {
		var day []string
		for _, s := range tt.Day(d) {
			room, _ := tt.Room(s.RoomID)
			class, _ := tt.Class(s.ClassID)
			activity, _ := tt.Activity(class.ActivityID)
			var staff, series []string
			for _, id := range s.StaffIDs {
				p, _ := tt.StaffMember(id)
				staff = append(staff, p.Name)
			}
			for _, sw := range s.Series {
				sr, _ := tt.SeriesByID(sw.SeriesID)
				series = append(series, fmt.Sprintf("%s W%d/%d", sr.Name, sw.Week, sw.Cycle))
			}
			slices.Sort(series)
			day = append(day, fmt.Sprintf("%s %s-%s %s %s (%s) [%s] cancelled=%v", d, s.Start, s.End, room.Name, activity.Name,
				strings.Join(staff, ", "), strings.Join(series, "; "), s.Cancelled))
		}
		slices.Sort(day)
		out = append(out, day...)
	}
	return out
}

// TestImportReference moves the reference fixtures over with the command:
// what is stored gives the converted timetable for every date, double
// bookings come along as pre-existing clashes (or, with --strict, refuse
// the import), and nothing is written by a dry run or a refused import.
func TestImportReference(t *testing.T) {
	dir := newDatabase(t)
	gym := filepath.Join("..", "..", "engine", "reference", "testdata", "gym.json")
	double := filepath.Join("..", "..", "engine", "reference", "testdata", "double_bookings.json")

	if code, _, errs := run(t, dir, "import", "koredyne", gym, "--business", "harbor"); code == 0 || !strings.Contains(errs, "--create") {
		t.Errorf("into a missing business without --create: %d %s", code, errs)
	}
	code, out, errs := run(t, dir, "import", "koredyne", gym, "--business", "harbor", "--create", "--time-zone", "Asia/Kuwait", "--dry-run")
	if code != 0 || !strings.Contains(out, "would import") {
		t.Fatalf("dry run: %d %s %s", code, out, errs)
	}
	store := storedStore(t, dir)
	if _, err := models.BusinessBySlug(context.Background(), store.DB, "harbor"); err == nil {
		t.Error("a dry run created the business")
	}
	if code, _, errs := run(t, dir, "import", "koredyne", gym, "--business", "harbor", "--create", "--time-zone", "Mars/Olympus"); code != 2 || !strings.Contains(errs, "Mars/Olympus") {
		t.Errorf("an unknown time zone: %d %s", code, errs)
	}
	code, out, errs = run(t, dir, "import", "koredyne", gym, "--business", "harbor", "--create", "--time-zone", "Asia/Kuwait")
	if code != 0 || !strings.Contains(out, "imported") {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	t.Log(strings.TrimSpace(out))

	data, err := os.ReadFile(gym)
	if err != nil {
		t.Fatal(err)
	}
	kuwait, err := time.LoadLocation("Asia/Kuwait")
	if err != nil {
		t.Fatal(err)
	}
	imp, err := reference.Read(bytes.NewReader(data), reference.Options{Location: kuwait, WeekStart: time.Sunday})
	if err != nil {
		t.Fatal(err)
	}
	want, err := engine.New(imp.State)
	if err != nil {
		t.Fatal(err)
	}
	b, err := models.BusinessBySlug(context.Background(), store.DB, "harbor")
	if err != nil {
		t.Fatal(err)
	}
	sn, err := store.Snapshot(context.Background(), b.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	from, to := engine.MustDate(2024, 1, 1), engine.MustDate(2027, 1, 1)
	got, wantDays := describeDays(sn.Timetable, from, to), describeDays(want, from, to)
	if !slices.Equal(got, wantDays) {
		t.Errorf("the stored timetable differs from the converted one (%d and %d sessions)", len(got), len(wantDays))
	}
	if len(got) < 1000 {
		t.Errorf("only %d sessions compared", len(got))
	}
	clients, err := models.SearchClients(context.Background(), store.DB, b.ID, "")
	if err != nil || len(clients) != len(imp.State.Clients) {
		t.Errorf("%d clients stored, %d imported (%v)", len(clients), len(imp.State.Clients), err)
	}

	// A business that has a timetable is not replaced by accident.
	if code, _, errs := run(t, dir, "import", "koredyne", double, "--business", "harbor"); code == 0 || !strings.Contains(errs, "--replace") {
		t.Errorf("over a timetable without --replace: %d %s", code, errs)
	}

	// Double bookings: refused with --strict, kept as pre-existing without.
	if code, _, errs := run(t, dir, "import", "koredyne", double, "--business", "harbor", "--replace", "--time-zone", "Europe/Berlin"); code != 2 || !strings.Contains(errs, "keeps its time zone Asia/Kuwait") {
		t.Errorf("another zone for an existing business: %d %s", code, errs)
	}
	if code, _, errs := run(t, dir, "import", "koredyne", double, "--business", "doubles", "--create", "--time-zone", "Europe/Berlin", "--strict"); code == 0 || !strings.Contains(errs, "double-booked") {
		t.Errorf("--strict: %d %s", code, errs)
	}
	if _, err := models.BusinessBySlug(context.Background(), store.DB, "doubles"); err == nil {
		t.Error("a refused import left its business behind")
	}
	code, out, errs = run(t, dir, "import", "koredyne", double, "--business", "doubles", "--create", "--time-zone", "Europe/Berlin")
	if code != 0 || !strings.Contains(out, "pre-existing clash") {
		t.Fatalf("double bookings: %d %s %s", code, out, errs)
	}
	t.Log(strings.TrimSpace(out))
	d, err := models.BusinessBySlug(context.Background(), store.DB, "doubles")
	if err != nil {
		t.Fatal(err)
	}
	sn, err = store.Snapshot(context.Background(), d.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	report := sn.Clashes(sn.Today(store.Now()))
	if len(report.Clashes) == 0 {
		t.Fatal("no clashes stored")
	}
	for _, c := range report.Clashes {
		if !sn.PreExisting(&c) {
			t.Errorf("not pre-existing: %s", c.Message)
		}
	}
	// They never block an unrelated write.
	if _, err := store.Write(context.Background(), d.ID, false, func(e *models.Edit) error {
		e.State.Rooms = append(e.State.Rooms, engine.Room{ID: e.NewID(), Name: "Annex"})
		return nil
	}); err != nil {
		t.Errorf("an unrelated write after the import: %v", err)
	}
}

// TestBackupCommands backs a business up with the command and restores it
// into another database.
func TestBackupCommands(t *testing.T) {
	dir, other := newDatabase(t), newDatabase(t)
	if code, _, errs := run(t, dir, "demo", "load", "clinic", "--business", "clinic"); code != 0 {
		t.Fatal(errs)
	}
	file := filepath.Join(t.TempDir(), "clinic.json")
	if code, _, errs := run(t, dir, "export", "json", "--business", "clinic", "--out", file); code != 0 {
		t.Fatal(errs)
	}
	if code, out, errs := run(t, other, "import", "json", file); code != 0 || !strings.Contains(out, `restored business "clinic"`) {
		t.Fatalf("%d %s %s", code, out, errs)
	}
	_, first, _ := run(t, dir, "export", "json", "--business", "clinic")
	_, second, _ := run(t, other, "export", "json", "--business", "clinic")
	if first == "" || first != second {
		t.Errorf("the restored business backs up differently (%d and %d bytes)", len(first), len(second))
	}
	if code, _, errs := run(t, other, "import", "json", file); code == 0 || !strings.Contains(errs, "already") {
		t.Errorf("restoring twice: %d %s", code, errs)
	}
	// Under a new name, the backup is restored beside its original in the
	// same database, with new ids: the same data but for the name and ids.
	if code, out, errs := run(t, dir, "import", "json", file, "--business", "clinic-copy"); code != 0 || !strings.Contains(out, `restored business "clinic-copy"`) {
		t.Fatalf("restoring beside the original: %d %s %s", code, out, errs)
	}
	code, copied, errs := run(t, dir, "export", "json", "--business", "clinic-copy")
	if code != 0 {
		t.Fatalf("the copy's backup: %d %s", code, errs)
	}
	if strings.Count(copied, `"id":`) != strings.Count(first, `"id":`) || copied == strings.Replace(first, `"slug": "clinic"`, `"slug": "clinic-copy"`, 1) {
		t.Errorf("the copy should hold as many rows as the original, under new ids")
	}
}

// TestCalendarCommands exports a demo as an iCalendar file and imports it
// into an empty business of another database: the same sessions on every
// date of a year. A dry run and a refused import write nothing, and events
// the timetable cannot hold are reported by line.
func TestCalendarCommands(t *testing.T) {
	ctx := context.Background()
	dir, other := newDatabase(t), newDatabase(t)
	if code, _, errs := run(t, dir, "demo", "load", "gym", "--business", "gym"); code != 0 {
		t.Fatal(errs)
	}
	file := filepath.Join(t.TempDir(), "gym.ics")
	if code, _, errs := run(t, dir, "export", "ics", "--business", "gym", "--out", file); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := run(t, other, "migrate", "up"); code != 0 {
		t.Fatal(errs)
	}
	src, dst := storedStore(t, dir), storedStore(t, other)
	gym, err := models.BusinessBySlug(ctx, src.DB, "gym")
	if err != nil {
		t.Fatal(err)
	}
	want, err := src.Snapshot(ctx, gym.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	moved, err := models.CreateBusiness(ctx, dst.DB, "moved", want.State.Business)
	if err != nil {
		t.Fatal(err)
	}
	revision := func() int64 {
		t.Helper()
		b, err := models.BusinessBySlug(ctx, dst.DB, "moved")
		if err != nil {
			t.Fatal(err)
		}
		return b.Revision
	}
	rev := revision()

	code, out, errs := run(t, other, "import", "ics", file, "--business", "moved", "--dry-run")
	if code != 0 || !strings.Contains(out, "would import") || revision() != rev {
		t.Fatalf("dry run: %d %q %q, revision %d → %d", code, out, errs, rev, revision())
	}
	code, out, errs = run(t, other, "import", "ics", file, "--business", "moved")
	if code != 0 || !strings.Contains(out, "imported") || strings.Contains(out, "not imported") {
		t.Fatalf("import: %d %q %q", code, out, errs)
	}
	got, err := dst.Snapshot(ctx, moved.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	from := engine.DateOf(time.Now().In(want.State.Business.Location)) - 30
	if a, b := describeDays(want.Timetable, from, from+365), describeDays(got.Timetable, from, from+365); !slices.Equal(a, b) {
		t.Errorf("the imported gym differs: %d sessions, want %d\n%s", len(b), len(a), firstDifference(a, b))
	}

	// The same file again books every room twice: refused whole.
	rev = revision()
	code, _, errs = run(t, other, "import", "ics", file, "--business", "moved")
	if code != 1 || !strings.Contains(errs, "clashes") || revision() != rev {
		t.Errorf("importing twice: %d %q, revision %d → %d", code, errs, rev, revision())
	}

	monthly := filepath.Join(t.TempDir(), "monthly.ics")
	os.WriteFile(monthly, []byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"+
		"BEGIN:VEVENT\r\nUID:m1\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Berlin:20270104T070000\r\n"+
		"DTEND;TZID=Europe/Berlin:20270104T080000\r\nRRULE:FREQ=MONTHLY;BYDAY=1MO\r\nSUMMARY:Members' meeting\r\n"+
		"LOCATION:Studio Zeta\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"), 0o600)
	code, out, errs = run(t, other, "import", "ics", monthly, "--business", "moved", "--default-staff", "Front desk")
	if code != 0 || !strings.Contains(out, "not imported: line 4 (Members' meeting)") {
		t.Errorf("a monthly rule: %d %q %q", code, out, errs)
	}
	code, out, errs = run(t, other, "import", "ics", monthly, "--business", "moved", "--default-staff", "Front desk",
		"--expand-until", "2027-06-30", "--dry-run")
	if code != 0 || !strings.Contains(out, "6 one-offs") {
		t.Errorf("a monthly rule expanded: %d %q %q", code, out, errs)
	}
}

func firstDifference(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("first difference:\n  want %s\n  got  %s", a[i], b[i])
		}
	}
	return ""
}

// TestExportICSInTheBusinessLanguage: koredyne export ics writes its
// events' descriptions in the business's language, as its CalDAV feeds.
func TestExportICSInTheBusinessLanguage(t *testing.T) {
	ctx := context.Background()
	dir := newDatabase(t)
	if code, _, errs := run(t, dir, "demo", "load", "gym", "--business", "gym"); code != 0 {
		t.Fatal(errs)
	}
	store := storedStore(t, dir)
	gym, err := models.BusinessBySlug(ctx, store.DB, "gym")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Write(ctx, gym.ID, false, func(e *models.Edit) error {
		e.State.Business.Locale.Language = "tr"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	code, ics, errs := run(t, dir, "export", "ics", "--business", "gym")
	if code != 0 {
		t.Fatal(errs)
	}
	n := 0
	for _, line := range strings.Split(strings.ReplaceAll(ics, "\r\n ", ""), "\r\n") {
		if strings.HasPrefix(line, "DESCRIPTION") {
			n++
			if !strings.HasPrefix(line, "DESCRIPTION;LANGUAGE=tr:Antrenör: ") && !strings.HasPrefix(line, "DESCRIPTION;LANGUAGE=tr:Antrenörler: ") {
				t.Fatalf("not in Turkish: %q", line)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no DESCRIPTION in\n%.600s", ics)
	}
}
