package icalendar

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
)

// header is five lines, one of them folded: the first event of a test file
// begins on line 6.
const header = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nX-WR-CALDESC:a description long enough to be\r\n  folded onto a second line\r\n"

func calendar(events ...string) string {
	var b strings.Builder
	b.WriteString(header)
	for _, e := range events {
		b.WriteString(strings.ReplaceAll(strings.TrimSpace(e), "\n", "\r\n") + "\r\n")
	}
	b.WriteString("END:VCALENDAR\r\n")
	return b.String()
}

// vevent writes a VEVENT with a title, a room and a coach, and the given
// lines: 6 lines plus one per extra.
func vevent(uid string, lines ...string) string {
	return fmt.Sprintf("BEGIN:VEVENT\nUID:%s\nSUMMARY:Boxing\nLOCATION:Ring\nORGANIZER;CN=Marco Reyes:mailto:marco@example.com\n%s\nEND:VEVENT",
		uid, strings.Join(lines, "\n"))
}

const (
	berlinStart = "DTSTART;TZID=Europe/Berlin:20260105T100000"
	berlinEnd   = "DTEND;TZID=Europe/Berlin:20260105T110000"
)

// TestProblems checks, case by case, the reason and the line of every
// problem an import reports, in a gym in Berlin whose weeks start on
// Monday.
func TestProblems(t *testing.T) {
	gym := engine.Business{Kind: engine.Gym, Name: "Harbor", Currency: "KD", Location: mustZone(t, "Europe/Berlin"), WeekStart: time.Monday}
	kuwait := gym
	kuwait.Location = mustZone(t, "Asia/Kuwait")
	type want struct {
		line   int
		uid    string
		reason string
	}
	cases := []struct {
		name     string
		file     string
		business engine.Business
		opts     ImportOptions
		want     []want
	}{
		{
			name: "all-day event",
			file: calendar(vevent("a", "DTSTART;VALUE=DATE:20260105", "DTEND;VALUE=DATE:20260106")),
			want: []want{{6, "a", "is an all-day event; the timetable only holds classes with a start and end time"}},
		},
		{
			name: "crosses midnight",
			file: calendar(vevent("a", "DTSTART;TZID=Europe/Berlin:20260105T220000", "DTEND;TZID=Europe/Berlin:20260106T010000")),
			want: []want{{6, "a", "runs past midnight (Mon 5 Jan 2026 22:00 to Tue 6 Jan 2026 01:00); a class must start and end on the same day"}},
		},
		{
			name: "repeats across midnight",
			file: calendar(vevent("a", "DTSTART;TZID=Europe/Berlin:20260105T220000", "DURATION:PT3H", "RRULE:FREQ=WEEKLY")),
			opts: ImportOptions{ExpandUntil: engine.MustDate(2026, 12, 31)},
			want: []want{{6, "a", "runs past midnight (22:00 for 3 h 00 min on the business's clock); a class must start and end on the same day; its dates cannot be brought in as one-off classes either"}},
		},
		{
			name: "ends at midnight is fine",
			file: calendar(vevent("a", "DTSTART;TZID=Europe/Berlin:20260105T230000", "DTEND;TZID=Europe/Berlin:20260106T000000", "RRULE:FREQ=WEEKLY")),
		},
		{
			name: "longer than a day",
			file: calendar(vevent("a", berlinStart, "DURATION:P1DT2H")),
			want: []want{{6, "a", "lasts longer than a day (26 h 00 min); a class must start and end on the same day"}},
		},
		{
			name: "no end",
			file: calendar(vevent("a", berlinStart)),
			want: []want{{6, "a", "has no end time (DTEND or DURATION)"}},
		},
		{
			name: "ends before it starts",
			file: calendar(vevent("a", berlinStart, "DTEND;TZID=Europe/Berlin:20260105T090000")),
			want: []want{{6, "a", "ends before it starts"}},
		},
		{
			name: "unknown zone",
			file: calendar(vevent("a", "DTSTART;TZID=Mars/Olympus_Mons:20260105T100000", "DURATION:PT1H")),
			want: []want{{6, "a", `uses the time zone "Mars/Olympus_Mons", which is not known`}},
		},
		{
			name: "a Windows zone name is known",
			file: calendar(vevent("a", "DTSTART;TZID=W. Europe Standard Time:20260105T100000", "DURATION:PT1H", "RRULE:FREQ=WEEKLY")),
		},
		{
			name: "seconds",
			file: calendar(vevent("a", "DTSTART;TZID=Europe/Berlin:20260105T100030", "DURATION:PT1H")),
			want: []want{{6, "a", "starts at a time with seconds (10:00:30); times are kept to the minute"}},
		},
		{
			name: "no title",
			file: calendar("BEGIN:VEVENT\nUID:a\nLOCATION:Ring\n" + berlinStart + "\n" + berlinEnd + "\nEND:VEVENT"),
			want: []want{{6, "a", "has no title (SUMMARY) to name its activity"}},
		},
		{
			name: "no place",
			file: calendar("BEGIN:VEVENT\nUID:a\nSUMMARY:Boxing\nORGANIZER;CN=Marco Reyes:mailto:m@x\n" + berlinStart + "\n" + berlinEnd + "\nEND:VEVENT"),
			want: []want{{6, "a", "has no place (LOCATION) and no default room was given"}},
		},
		{
			name: "defaults fill in",
			file: calendar("BEGIN:VEVENT\nUID:a\nSUMMARY:Boxing\n" + berlinStart + "\n" + berlinEnd + "\nEND:VEVENT"),
			opts: ImportOptions{DefaultRoom: "Ring", DefaultStaff: "Marco Reyes"},
		},
		{
			name: "nobody to run it",
			file: calendar("BEGIN:VEVENT\nUID:a\nSUMMARY:Boxing\nLOCATION:Ring\n" +
				"ATTENDEE;CN=A Member;ROLE=OPT-PARTICIPANT:mailto:m@x\n" + berlinStart + "\n" + berlinEnd + "\nEND:VEVENT"),
			want: []want{{6, "a", "names no organizer or attendee to run it, and no default coach was given"}},
		},
		{
			name: "hourly",
			file: calendar(vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=HOURLY;INTERVAL=4")),
			want: []want{{6, "a", "repeats hourly (FREQ=HOURLY), which a weekly rotation cannot hold"}},
		},
		{
			name: "monthly, reported and not expanded",
			file: calendar(vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=MONTHLY;BYDAY=1MO")),
			want: []want{{6, "a", "repeats monthly (FREQ=MONTHLY), which a weekly rotation cannot hold; give an end date for the import to bring its dates in as one-off classes"}},
		},
		{
			name: "monthly, expanded",
			file: calendar(vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=MONTHLY;BYDAY=1MO")),
			opts: ImportOptions{ExpandUntil: engine.MustDate(2026, 6, 30)},
			want: []want{{6, "a", "repeats monthly (FREQ=MONTHLY), which a weekly rotation cannot hold; imported as 6 one-off classes up to Tue 30 Jun 2026"}},
		},
		{
			name: "weekly with positions",
			file: calendar(vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=WEEKLY;BYDAY=MO,WE;BYSETPOS=1")),
			want: []want{{6, "a", "picks dates by their position (BYSETPOS), which a weekly rotation cannot hold; give an end date for the import to bring its dates in as one-off classes"}},
		},
		{
			name: "weeks of the year",
			file: calendar(vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=YEARLY;BYWEEKNO=20")),
			opts: ImportOptions{ExpandUntil: engine.MustDate(2026, 6, 30)},
			want: []want{{6, "a", "repeats yearly (FREQ=YEARLY), which a weekly rotation cannot hold; its dates cannot be brought in as one-off classes either"}},
		},
		{
			name: "extra dates",
			file: calendar(vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=WEEKLY;COUNT=3", "RDATE;TZID=Europe/Berlin:20260303T180000")),
			opts: ImportOptions{ExpandUntil: engine.MustDate(2026, 6, 30)},
			want: []want{{6, "a", "has extra dates (RDATE) besides its repeat rule; imported as 4 one-off classes up to Tue 30 Jun 2026"}},
		},
		{
			name: "too long a rotation",
			file: calendar(vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=WEEKLY;INTERVAL=60")),
			want: []want{{6, "a", "repeats every 60 weeks; a package rotation can be at most 52 weeks long; give an end date for the import to bring its dates in as one-off classes"}},
		},
		{
			name: "every 371 days is 53 weeks",
			file: calendar(vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=DAILY;INTERVAL=371")),
			want: []want{{6, "a", "repeats every 53 weeks; a package rotation can be at most 52 weeks long; give an end date for the import to bring its dates in as one-off classes"}},
		},
		{
			name: "a fixed UTC time moves with daylight-saving time",
			file: calendar(vevent("a", "DTSTART:20260105T090000Z", "DTEND:20260105T100000Z", "RRULE:FREQ=WEEKLY")),
			want: []want{{6, "a", "repeats at a fixed UTC time (09:00 UTC), which moves on the business's clock when Europe/Berlin changes to or from daylight-saving time; give an end date for the import to bring its dates in as one-off classes"}},
		},
		{
			name:     "a fixed UTC time in a zone without daylight-saving time is fine",
			file:     calendar(vevent("a", "DTSTART:20260105T090000Z", "DTEND:20260105T100000Z", "RRULE:FREQ=WEEKLY")),
			business: kuwait,
		},
		{
			name: "a fixed UTC time in winter only is fine",
			file: calendar(vevent("a", "DTSTART:20260105T090000Z", "DTEND:20260105T100000Z", "RRULE:FREQ=WEEKLY;UNTIL=20260310T000000Z")),
		},
		{
			name: "another zone",
			file: calendar(vevent("a", "DTSTART;TZID=America/New_York:20260105T100000", "DURATION:PT1H", "RRULE:FREQ=WEEKLY")),
			want: []want{{6, "a", "repeats on the clock of America/New_York, which changes to or from daylight-saving time on other dates than Europe/Berlin: its sessions would not keep one time here; give an end date for the import to bring its dates in as one-off classes"}},
		},
		{
			name: "cancelled as a whole",
			file: calendar(vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=WEEKLY", "STATUS:CANCELLED")),
			want: []want{{6, "a", "is cancelled as a whole (STATUS:CANCELLED); nothing to import"}},
		},
		{
			name: "every date taken out is still imported, cancelled",
			file: calendar(vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=WEEKLY;COUNT=2",
				"EXDATE;TZID=Europe/Berlin:20260105T100000,20260112T100000")),
		},
		{
			name: "two rules",
			file: calendar(vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=WEEKLY", "RRULE:FREQ=WEEKLY;BYDAY=TU")),
			want: []want{{6, "a", "has more than one repeat rule (RRULE)"}},
		},
		{
			name: "a rule that cannot be read",
			file: calendar(vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=SOMETIMES")),
			want: []want{{6, "a", `has a repeat rule (RRULE) that cannot be read: invalid FREQ value: "SOMETIMES"`}},
		},
		{
			name: "the same UID twice",
			file: calendar(vevent("a", berlinStart, berlinEnd), vevent("a", berlinStart, berlinEnd)),
			want: []want{{14, "a", "has the same UID as the event on line 6; only the first is imported"}},
		},
		{
			name: "an override of a date the event does not have",
			file: calendar(
				vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=WEEKLY;BYDAY=MO"),
				vevent("a", "RECURRENCE-ID;TZID=Europe/Berlin:20260107T100000", "DTSTART;TZID=Europe/Berlin:20260107T120000", "DURATION:PT1H"),
				vevent("a", "RECURRENCE-ID;TZID=Europe/Berlin:20260112T090000", "DTSTART;TZID=Europe/Berlin:20260112T120000", "DURATION:PT1H"),
			),
			want: []want{
				{15, "a", "changes the date of Wed 7 Jan 2026 10:00, which the repeating event does not have"},
				{24, "a", "changes the date of Mon 12 Jan 2026 09:00, which the repeating event does not have (its sessions start at 10:00)"},
			},
		},
		{
			name: "an override of an excluded date",
			file: calendar(
				vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=WEEKLY;BYDAY=MO", "EXDATE;TZID=Europe/Berlin:20260112T100000"),
				vevent("a", "RECURRENCE-ID;TZID=Europe/Berlin:20260112T100000", "DTSTART;TZID=Europe/Berlin:20260112T120000", "DURATION:PT1H"),
			),
			want: []want{{16, "a", "changes the date of Mon 12 Jan 2026 10:00, which the repeating event does not have"}},
		},
		{
			name: "the same date changed twice",
			file: calendar(
				vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=WEEKLY;BYDAY=MO"),
				vevent("a", "RECURRENCE-ID;TZID=Europe/Berlin:20260112T100000", "DTSTART;TZID=Europe/Berlin:20260112T120000", "DURATION:PT1H"),
				vevent("a", "RECURRENCE-ID;TZID=Europe/Berlin:20260112T100000", "STATUS:CANCELLED"),
			),
			want: []want{{24, "a", "changes the class of Mon 12 Jan 2026 a second time"}},
		},
		{
			name: "an override that runs past midnight",
			file: calendar(
				vevent("a", berlinStart, berlinEnd, "RRULE:FREQ=WEEKLY;BYDAY=MO"),
				vevent("a", "RECURRENCE-ID;TZID=Europe/Berlin:20260112T100000", "DTSTART;TZID=Europe/Berlin:20260112T233000", "DURATION:PT1H"),
			),
			want: []want{{15, "a", "runs past midnight (Mon 12 Jan 2026 23:30 to Tue 13 Jan 2026 00:30); a class must start and end on the same day"}},
		},
		{
			name: "an override without its event",
			file: calendar(vevent("b", "RECURRENCE-ID;TZID=Europe/Berlin:20260112T100000", berlinStart, berlinEnd)),
			want: []want{{6, "b", "changes one date of a repeating event that is not in the file"}},
		},
		{
			name: "an override of an event that does not repeat",
			file: calendar(vevent("a", berlinStart, berlinEnd), vevent("a", "RECURRENCE-ID;TZID=Europe/Berlin:20260105T100000", berlinStart, berlinEnd)),
			want: []want{{14, "a", "changes one date of an event that does not repeat"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.business
			if b.Location == nil {
				b = gym
			}
			res, err := Import(strings.NewReader(c.file), business(b), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []want
			for _, p := range res.Problems {
				got = append(got, want{p.Line, p.UID, p.Reason})
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("got problems\n  %v\nwant\n  %v", got, c.want)
			}
			if err := engine.Validate(res.State); err != nil {
				t.Fatalf("the imported state is not valid: %v", err)
			}
		})
	}
}

// TestImportRefusesFiles checks the errors of files that cannot be read at
// all.
func TestImportRefusesFiles(t *testing.T) {
	gym := business(engine.Business{Kind: engine.Gym, Name: "Harbor", Currency: "KD", Location: time.UTC})
	for _, c := range []struct{ name, file, want string }{
		{"not a calendar", "hello", "the file is not an iCalendar file that can be read"},
		{"a broken line", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", "the file is not an iCalendar file that can be read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Import(strings.NewReader(c.file), gym, ImportOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	if _, err := Import(strings.NewReader(calendar()), engine.State{}, ImportOptions{}); err == nil {
		t.Fatal("a business without a time zone was accepted")
	}
}

// TestImportCleansControlCharacters: a name in a file holding a control
// character or invalid UTF-8 comes in cleaned, with a problem saying so,
// never as it was (the engine would refuse it) and never refusing the file.
func TestImportCleansControlCharacters(t *testing.T) {
	gym := engine.Business{Kind: engine.Gym, Name: "Harbor", Currency: "KD", Location: mustZone(t, "Europe/Berlin"), WeekStart: time.Monday}
	file := calendar("BEGIN:VEVENT\nUID:a\nSUMMARY:Box\x00ing\nLOCATION:Ring\rA\nORGANIZER;CN=Marco Reyes:mailto:marco@example.com\nX-KOREDYNE-NOTE:bring\\ngloves\x1b\n" +
		berlinStart + "\n" + berlinEnd + "\nEND:VEVENT")
	res, err := Import(strings.NewReader(file), business(gym), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.Validate(res.State); err != nil {
		t.Fatalf("the imported state is not valid: %v", err)
	}
	want := "held control characters, invalid text or text too long in SUMMARY, LOCATION, X-KOREDYNE-NOTE; imported with them replaced by spaces and cut to fit"
	if len(res.Problems) != 1 || res.Problems[0].Reason != want || res.Problems[0].Line != 6 {
		t.Fatalf("got problems %v, want one on line 6: %s", res.Problems, want)
	}
	st := res.State
	if len(st.Rooms) != 1 || st.Rooms[0].Name != "Ring A" || len(st.Staff) != 1 || st.Staff[0].Name != "Marco Reyes" ||
		len(st.Activities) != 1 || st.Activities[0].Name != "Box ing" || len(st.OneOffs) != 1 || st.OneOffs[0].Note != "bring\ngloves" {
		t.Errorf("got rooms %+v, staff %+v, activities %+v, one-offs %+v", st.Rooms, st.Staff, st.Activities, st.OneOffs)
	}
	// golang-ical refuses a control character in a parameter: the file is
	// refused whole, nothing comes in.
	bad := strings.Replace(file, "CN=Marco Reyes", "CN=Marco\x01Reyes", 1)
	if _, err := Import(strings.NewReader(bad), business(gym), ImportOptions{}); err == nil {
		t.Error("a CN holding U+0001 was read")
	}
}

// TestImportQuotesBriefly: a reason that quotes what it could not read
// quotes at most briefLength bytes of it, so that a line as long as the
// file is not sent back whole.
func TestImportQuotesBriefly(t *testing.T) {
	gym := engine.Business{Kind: engine.Gym, Name: "Harbor", Currency: "KD", Location: mustZone(t, "Europe/Berlin"), WeekStart: time.Monday}
	long := strings.Repeat("é", 1<<19) // a megabyte
	_, err := Import(strings.NewReader(header+long+"\r\nEND:VCALENDAR\r\n"), business(gym), ImportOptions{})
	if err == nil || len(err.Error()) > briefLength+100 || !strings.HasSuffix(err.Error(), "…") {
		t.Errorf("a file of one long line: %d bytes of error: %.200v", len(fmt.Sprint(err)), err)
	}
	res, err := Import(strings.NewReader(calendar(vevent("a", "DTSTART;TZID=Europe/Berlin:"+long, berlinEnd))), business(gym), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || len(res.Problems[0].Reason) > briefLength+len("…") || !strings.HasSuffix(res.Problems[0].Reason, "é…") {
		t.Errorf("a start of a megabyte: %d problems, the first %.200v", len(res.Problems), res.Problems)
	}
}
