package icalendar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	// Tests load zones by name; the embedded database keeps them working on
	// machines without one.
	_ "time/tzdata"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/modelstest/need"
)

// The tests compare with python-recurring-ical-events (on python-icalendar
// and python-dateutil), an independent reading of RFC 5545, run from
// testdata/occurrences.py with the system Python.
const python = "/usr/bin/python3"

var script = filepath.Join("testdata", "occurrences.py")

// runPython runs the script; without Python or its modules the test is
// skipped, or fails under CI=true, where they must be installed.
func runPython(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	unavailable := func(why string) {
		t.Helper()
		t.Log(why)
		need.Missing(t, "python3-recurring-ical-events", "apt-get install python3-recurring-ical-events python3-icalendar python3-dateutil")
	}
	if _, err := os.Stat(python); err != nil {
		unavailable(python + " not found")
	}
	cmd := exec.Command(python, append([]string{"-I", script}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		unavailable(strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", python, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// occ is one occurrence as both sides see it: the date it starts on (the
// business's clock), its instants, what and where.
type occ struct {
	UID      string `json:"uid"`
	Date     string `json:"date"`
	Start    int64  `json:"start"`
	End      int64  `json:"end"`
	Summary  string `json:"summary"`
	Location string `json:"location"`
	AllDay   bool   `json:"allDay"`
}

func (o occ) key() string {
	return fmt.Sprintf("%s %s–%s %s @ %s", o.Date, time.Unix(o.Start, 0).UTC().Format("2006-01-02T15:04Z"),
		time.Unix(o.End, 0).UTC().Format("15:04Z"), o.Summary, o.Location)
}

// pythonOccurrences expands a file over [from, to) on zone's clock.
func pythonOccurrences(t *testing.T, file string, from, to engine.Date, zone *time.Location) []occ {
	t.Helper()
	out := runPython(t, nil, file, from.String(), to.String(), zone.String())
	var occs []occ
	if err := json.Unmarshal(out, &occs); err != nil {
		t.Fatalf("reading the script's output: %v\n%s", err, out)
	}
	return occs
}

// summary is how export titles a session (and how the test files title
// theirs, with no label).
func summary(tt *engine.Timetable, s *engine.Session) string {
	class, _ := tt.Class(s.ClassID)
	act, _ := tt.Activity(class.ActivityID)
	if s.Label != "" && !strings.EqualFold(s.Label, act.Name) {
		return act.Name + " · " + s.Label
	}
	return act.Name
}

// engineOccurrences lists the sessions of [from, to) that happen (not
// cancelled), at their instants.
func engineOccurrences(tt *engine.Timetable, from, to engine.Date) []occ {
	loc := tt.State().Business.Location
	var out []occ
	for d := from; d < to; d++ {
		for _, s := range tt.Day(d) {
			if s.Cancelled {
				continue
			}
			start, end := s.Instants(loc)
			room, _ := tt.Room(s.RoomID)
			out = append(out, occ{Date: d.String(), Start: start.Unix(), End: end.Unix(), Summary: summary(tt, &s), Location: room.Name})
		}
	}
	return out
}

// diffOccurrences compares the independent expansion (got) with the
// engine's sessions (want) as multisets and describes the difference, or
// returns "".
func diffOccurrences(got, want []occ) string {
	count := map[string]int{}
	for _, o := range got {
		count[o.key()]++
	}
	for _, o := range want {
		count[o.key()]--
	}
	var lines []string
	for k, n := range count {
		switch {
		case n > 0:
			lines = append(lines, fmt.Sprintf("  only the independent expansion (%d): %s", n, k))
		case n < 0:
			lines = append(lines, fmt.Sprintf("  only the engine (%d): %s", -n, k))
		}
	}
	sort.Strings(lines)
	if len(lines) > 20 {
		lines = append(lines[:20], fmt.Sprintf("  … and %d more", len(lines)-20))
	}
	return strings.Join(lines, "\n")
}

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func date(t testing.TB, s string) engine.Date {
	t.Helper()
	d, err := engine.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// business is an empty business with the settings of b.
func business(b engine.Business) engine.State { return engine.State{Business: b} }

func timetable(t testing.TB, s engine.State) *engine.Timetable {
	t.Helper()
	tt, err := engine.New(s)
	if err != nil {
		t.Fatalf("the state is not valid: %v", err)
	}
	return tt
}
