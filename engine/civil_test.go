package engine

import (
	"errors"
	"testing"
	"time"
	_ "time/tzdata"
)

func TestParseDate(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"plain", "2026-10-06", true},
		{"leap day", "2028-02-29", true},
		{"first day", "1900-01-01", true},
		{"last day", "2199-12-31", true},
		{"before the window", "1899-12-31", false},
		{"after the window", "2200-01-01", false},
		{"year 1", "0001-01-01", false},
		{"year 9999", "9999-12-31", false},
		{"no such day", "2026-02-30", false},
		{"not a leap year", "2026-02-29", false},
		{"century not leap", "2100-02-29", false},
		{"month 13", "2026-13-01", false},
		{"day zero", "2026-01-00", false},
		{"year zero", "0000-01-01", false},
		{"short", "2026-1-5", false},
		{"slashes", "2026/01/05", false},
		{"letters", "20x6-01-05", false},
		{"signed", "+026-01-05", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDate(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("ParseDate(%q) = %v, %v; want ok %v", tt.in, d, err, tt.ok)
			}
			if err == nil && d.String() != tt.in {
				t.Errorf("round trip: got %s, want %s", d, tt.in)
			}
		})
	}
}

func TestParseDateErrorNamesValue(t *testing.T) {
	_, err := ParseDate("2026-02-30")
	if err == nil || err.Error() != `"2026-02-30" is not a real date` {
		t.Fatalf("got %v", err)
	}
}

// TestDateMatchesTime compares the civil arithmetic with package time over
// every day of four centuries.
func TestDateMatchesTime(t *testing.T) {
	start := MustDate(1900, 1, 1)
	ref := time.Date(1900, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := 0; i < 146097; i++ {
		d := start + Date(i)
		tm := ref.AddDate(0, 0, i)
		y, m, day := d.Civil()
		if y != tm.Year() || m != int(tm.Month()) || day != tm.Day() || d.Weekday() != tm.Weekday() {
			t.Fatalf("day %d: got %04d-%02d-%02d %s, want %s", i, y, m, day, d.Weekday(), tm.Format("2006-01-02 Monday"))
		}
		if DateOf(tm) != d {
			t.Fatalf("DateOf(%s) = %s", tm, DateOf(tm))
		}
	}
}

func TestWeekStart(t *testing.T) {
	tests := []struct {
		name, date string
		start      time.Weekday
		want       string
	}{
		{"sunday week, on sunday", "2026-10-04", time.Sunday, "2026-10-04"},
		{"sunday week, saturday", "2026-10-10", time.Sunday, "2026-10-04"},
		{"monday week, sunday", "2026-10-04", time.Monday, "2026-09-28"},
		{"monday week, monday", "2026-10-05", time.Monday, "2026-10-05"},
		{"across a year", "2027-01-01", time.Monday, "2026-12-28"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustParse(t, tt.date).WeekStart(tt.start)
			if got.String() != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestAddMonths(t *testing.T) {
	tests := []struct {
		name, from string
		months     int
		want       string
	}{
		{"plain", "2026-03-15", 1, "2026-04-15"},
		{"clamped to february", "2026-01-31", 1, "2026-02-28"},
		{"clamped to leap february", "2028-01-31", 1, "2028-02-29"},
		{"over a year", "2026-11-30", 3, "2027-02-28"},
		{"twelve", "2026-05-31", 12, "2027-05-31"},
		{"back", "2026-03-31", -1, "2026-02-28"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustParse(t, tt.from).AddMonths(tt.months)
			if got.String() != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseLocalTime(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"00:00", true}, {"09:05", true}, {"23:59", true}, {"24:00", true},
		{"25:00", false}, {"24:01", false}, {"9:5", false}, {"9:05", false},
		{"09:60", false}, {"0905", false}, {"09-05", false}, {"", false}, {"-1:00", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v, err := ParseLocalTime(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("ParseLocalTime(%q) = %v, %v; want ok %v", tt.in, v, err, tt.ok)
			}
			if err == nil && v.String() != tt.in {
				t.Errorf("round trip: got %s, want %s", v, tt.in)
			}
		})
	}
	if _, err := ParseLocalTime("25:00"); err == nil || err.Error() != `"25:00" is not a time of day (00:00 to 24:00)` {
		t.Errorf("25:00: got %v", err)
	}
	if _, err := ParseLocalTime("9:5"); err == nil || err.Error() != `"9:5" is not a time: write it as HH:MM (24-hour)` {
		t.Errorf("9:5: got %v", err)
	}
}

func TestClock12(t *testing.T) {
	tests := []struct{ in, want string }{
		{"09:00", "9 AM"}, {"09:15", "9:15 AM"}, {"12:00", "12 PM"}, {"12:05", "12:05 PM"},
		{"00:00", "12 AM"}, {"00:30", "12:30 AM"}, {"13:00", "1 PM"}, {"23:45", "11:45 PM"}, {"24:00", "12 AM"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := MustTime(tt.in).Clock12(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if got := Span(MustTime("09:00"), MustTime("09:15")); got != "9 AM – 9:15 AM" {
		t.Errorf("Span: got %q", got)
	}
}

// TestAt checks the edge of civil time and instants across daylight-saving
// changes: a wall-clock time stays the same, a time in the spring-forward gap
// is read with the offset before the gap, a repeated time is the first one.
func TestAt(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	newYork, _ := time.LoadLocation("America/New_York")
	tests := []struct {
		name       string
		date, time string
		loc        *time.Location
		want       string // UTC
	}{
		{"berlin winter", "2026-03-28", "18:00", berlin, "2026-03-28T17:00:00Z"},
		{"berlin summer, same wall clock", "2026-03-29", "18:00", berlin, "2026-03-29T16:00:00Z"},
		{"berlin gap 02:30 is 03:30 CEST", "2026-03-29", "02:30", berlin, "2026-03-29T01:30:00Z"},
		{"berlin just before gap", "2026-03-29", "01:59", berlin, "2026-03-29T00:59:00Z"},
		{"berlin after gap", "2026-03-29", "03:00", berlin, "2026-03-29T01:00:00Z"},
		{"berlin fall-back 02:30 first", "2026-10-25", "02:30", berlin, "2026-10-25T00:30:00Z"},
		{"berlin after fall-back", "2026-10-25", "03:00", berlin, "2026-10-25T02:00:00Z"},
		{"new york gap 02:30 is 03:30 EDT", "2026-03-08", "02:30", newYork, "2026-03-08T07:30:00Z"},
		{"new york fall-back 01:30 first (EDT)", "2026-11-01", "01:30", newYork, "2026-11-01T05:30:00Z"},
		{"new york evening after fall-back", "2026-11-01", "18:00", newYork, "2026-11-01T23:00:00Z"},
		{"midnight at end of day", "2026-10-24", "24:00", berlin, "2026-10-24T22:00:00Z"},
		{"utc", "2026-06-01", "09:00", time.UTC, "2026-06-01T09:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustParse(t, tt.date).At(MustTime(tt.time), tt.loc).UTC().Format(time.RFC3339)
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestShort(t *testing.T) {
	today := MustDate(2026, 12, 1)
	if got := MustDate(2026, 10, 6).Short(today); got != "6 Oct" {
		t.Errorf("got %q", got)
	}
	if got := MustDate(2027, 1, 3).Short(today); got != "3 Jan 2027" {
		t.Errorf("got %q", got)
	}
}

func mustParse(t testing.TB, s string) Date {
	t.Helper()
	d, err := ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestAmbiguousAndInstants(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	newYork, _ := time.LoadLocation("America/New_York")
	tests := []struct {
		name             string
		date, start, end string
		loc              *time.Location
		ambiguous        bool
		from, to         string // UTC
	}{
		{"an ordinary evening", "2026-10-24", "18:00", "19:00", berlin, false, "2026-10-24T16:00:00Z", "2026-10-24T17:00:00Z"},
		{"berlin fall-back: the first 02:30", "2026-10-25", "02:30", "03:30", berlin, true, "2026-10-25T00:30:00Z", "2026-10-25T02:30:00Z"},
		{"berlin gap keeps its hour", "2027-03-28", "02:30", "03:30", berlin, false, "2027-03-28T01:30:00Z", "2027-03-28T02:30:00Z"},
		{"berlin gap to after the gap", "2027-03-28", "02:30", "04:00", berlin, false, "2027-03-28T01:30:00Z", "2027-03-28T02:00:00Z"},
		{"new york fall-back 01:15", "2026-11-01", "01:15", "01:45", newYork, true, "2026-11-01T05:15:00Z", "2026-11-01T05:45:00Z"},
		{"new york gap", "2027-03-14", "02:00", "02:30", newYork, false, "2027-03-14T07:00:00Z", "2027-03-14T07:30:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustParse(t, tt.date)
			if got := d.Ambiguous(MustTime(tt.start), tt.loc); got != tt.ambiguous {
				t.Errorf("ambiguous: got %v, want %v", got, tt.ambiguous)
			}
			s := Session{Date: d, Start: MustTime(tt.start), End: MustTime(tt.end)}
			from, to := s.Instants(tt.loc)
			if got := from.UTC().Format(time.RFC3339) + " " + to.UTC().Format(time.RFC3339); got != tt.from+" "+tt.to {
				t.Errorf("got %s, want %s %s", got, tt.from, tt.to)
			}
		})
	}
}

// TestDateWindow checks the message and the sentinel a date outside the
// window gets, from text and from numbers.
func TestDateWindow(t *testing.T) {
	_, err := ParseDate("9999-12-31")
	if want := `"9999-12-31" is outside the dates a timetable holds (1900-01-01 to 2199-12-31)`; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if !errors.Is(err, ErrOutsideWindow) {
		t.Errorf("%v is not ErrOutsideWindow", err)
	}
	if _, err := NewDate(1899, 12, 31); !errors.Is(err, ErrOutsideWindow) {
		t.Errorf("NewDate(1899, 12, 31): got %v, want ErrOutsideWindow", err)
	}
	if _, err := ParseDate("2026-02-30"); err == nil || errors.Is(err, ErrOutsideWindow) {
		t.Errorf("2026-02-30: got %v, want not a real date", err)
	}
	if MinDate.String() != "1900-01-01" || MaxDate.String() != "2199-12-31" || !MinDate.Valid() || !MaxDate.Valid() ||
		(MinDate - 1).Valid() || (MaxDate + 1).Valid() {
		t.Errorf("window %s..%s", MinDate, MaxDate)
	}
}
