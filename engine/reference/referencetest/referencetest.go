// Package referencetest reads the reference system's own resolution of its
// days (the sessions-*.json files beside its exports in
// engine/reference/testdata/reference), so that tests anywhere can compare
// what an imported business computes with what the reference computed.
package referencetest

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Session is one real session as both sides can describe it. Staff lists
// the coaches, main first, joined with ", "; Packages the names of the
// packages the session belongs to, sorted (empty for a one-off); From the
// date a moved session comes from.
type Session struct {
	Date, Start, End, Room, Activity, Staff string
	Cancelled                               bool
	From                                    string
	Packages                                []string
}

func (s Session) String() string {
	from := ""
	if s.From != "" {
		from = " (moved from " + s.From + ")"
	}
	return fmt.Sprintf("%s %s–%s %s | %s | %s | cancelled=%v%s | packages %s", s.Date, s.Start, s.End, s.Room,
		s.Activity, s.Staff, s.Cancelled, from, strings.Join(s.Packages, ", "))
}

// Canonical sorts a day's sessions (and each one's packages) so that two
// descriptions of one day compare equal.
func Canonical(day []Session) []string {
	out := make([]string, len(day))
	for i, s := range day {
		sort.Strings(s.Packages)
		out[i] = s.String()
	}
	sort.Strings(out)
	return out
}

// Resolution is a sessions-*.json file: the reference's days From to To
// (inclusive), each date's real sessions in canonical form.
type Resolution struct {
	From, To string
	Days     map[string][]string
}

// Read reads a resolution. Its rows are one per package a session belongs
// to, or per one-off: they are grouped by date, slot and class (and, for a
// moved session, the date it comes from) or by one-off, and rows on
// switched-off class times (gap), which are not real sessions, are left out.
func Read(b []byte) (*Resolution, error) { return ReadAs(b, Twins{}) }

// Twins says how an importer took classes with one activity and one set of
// coaches, which the reference keeps apart: the sessions of a class in
// Same are one with those of the class it names when they share a slot, a
// date and (for a moved session) the date it comes from, as the same coaches
// twice in one room at one time are one session; the sessions of a class in
// Apart show the activity it names.
type Twins struct {
	Same  map[int64]int64
	Apart map[int64]string
}

// ReadAs reads a resolution as Read does, with twins taken as the importer
// took them.
func ReadAs(b []byte, twins Twins) (*Resolution, error) {
	var r struct {
		From, To string
		Days     []struct {
			Date     string
			Sessions []struct {
				Date      string
				StartTime string `json:"start_time"`
				EndTime   string `json:"end_time"`
				Room      string
				SlotID    any   `json:"slot_id"` // a number, or "o1" for a one-off
				ClassID   int64 `json:"class_id"`
				Activity  string
				Coaches   []string
				Package   *string
				OneOffID  *int64 `json:"one_off_id"`
				Gap       bool
				Cancelled bool
				Origin    *struct{ Date string }
			}
		}
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	out := &Resolution{From: r.From, To: r.To, Days: map[string][]string{}}
	for _, d := range r.Days {
		byKey := map[string]*Session{}
		var order []string
		for _, row := range d.Sessions {
			if row.Gap {
				continue
			}
			if row.Date != d.Date {
				return nil, fmt.Errorf("%s: a row dated %s", d.Date, row.Date)
			}
			s := Session{Date: row.Date, Start: row.StartTime, End: row.EndTime, Room: row.Room, Activity: row.Activity,
				Staff: strings.Join(row.Coaches, ", "), Cancelled: row.Cancelled}
			if a, ok := twins.Apart[row.ClassID]; ok {
				s.Activity = a
			}
			if row.Origin != nil && row.Origin.Date != row.Date {
				s.From = row.Origin.Date
			}
			class := row.ClassID
			if same, ok := twins.Same[class]; ok {
				class = same
			}
			k := fmt.Sprint(row.SlotID, "/", class, "/", s.From)
			if row.OneOffID != nil {
				k = fmt.Sprint("one-off ", *row.OneOffID)
			}
			if prev, ok := byKey[k]; ok {
				same := *prev
				same.Packages = nil
				if same.String() != s.String() {
					return nil, fmt.Errorf("%s: rows of one session differ: %v and %v", d.Date, prev, s)
				}
				prev.Packages = append(prev.Packages, *row.Package)
				continue
			}
			if row.Package != nil {
				s.Packages = []string{*row.Package}
			}
			byKey[k] = &s
			order = append(order, k)
		}
		day := make([]Session, len(order))
		for i, k := range order {
			day[i] = *byKey[k]
		}
		out.Days[d.Date] = Canonical(day)
	}
	return out, nil
}
