package page

import (
	"regexp"
	"slices"
	"strings"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/locale"
)

// week is what the page shows of one week: the computed sessions that
// happen, one table per activity, in the business's words.
type week struct {
	// Lang and Dir are the page's language and direction ("ar", "rtl").
	Lang, Dir string
	// Nav is the words of the links.
	Prev, ThisWeek, NextWeek string
	Business                 string
	Title                    string // the print title: "Training Schedule"
	Range                    string // "29 Nov – 5 Dec 2026"
	Days                     []day
	Tables                   []table
	Empty                    string // shown when nothing happens: "No classes this week."
	Paper                    string // the sheet a printout asks for, "A4" or "A3" (paper.go)
}

// day is one column: a date of the week.
type day struct {
	Date engine.Date
	Name string // "Sun"
	Day  string // "29 Nov"
	// Idle days have no session at all (a gym's day off); on paper their
	// column is left out to give the others room.
	Idle bool
}

// table is the week of one activity: a row per distinct start time.
type table struct {
	Activity string
	Color    string // a #rgb or #rrggbb accent, or empty
	Rows     []row
}

// row is one start time across the week; Cells has one entry per day.
type row struct {
	Start engine.LocalTime
	// From is the start written in the business's language.
	From string
	// Span is the row's start and the end every session of the row shares,
	// written short ("6–7 AM"); empty when they end at different times. On
	// paper the row's head then gives the span and its cells leave it out.
	Span  string
	Cells [][]cell
}

// cell is one session as the page writes it: no client, no booking count.
type cell struct {
	Key        string // the session's identity, "s/2026-12-01/12/7"
	Date       engine.Date
	Start, End engine.LocalTime
	Label      string
	Staff      string // names, or empty when hidden
	Moved      string // "Moved from 1 Dec" for a session moved in from another date
	// Usual is true when the row's head gives the session's span (its row's
	// Span), so that paper can leave the cell's time out.
	Usual bool
	// Time is the session's span as people read it: "6 AM – 7 AM".
	Time string
}

// build lays out the week that starts on from. Cancelled sessions are left
// out; a moved session is where it happens, since Timetable.Day resolves
// it there.
func build(sn *models.Snapshot, l *locale.Locale, from engine.Date, staff bool) week {
	b := sn.State.Business
	words := l.Words(b.Kind)
	to := from.AddDays(6)
	w := week{
		Lang: l.Language, Dir: l.Dir(),
		Prev: l.Text("page.prev", nil), ThisWeek: l.Text("page.this", nil), NextWeek: l.Text("page.next", nil),
		Business: b.Name,
		Title:    words.PrintTitle,
		Range:    l.DayMonth(from, to) + " – " + l.DayMonth(to, 0),
		Empty:    l.Text("page.empty", map[string]any{"None": l.Form(5, words.Class)}),
	}
	for d := from; d <= to; d++ {
		w.Days = append(w.Days, day{Date: d, Name: l.WeekdayShort(d.Weekday()), Day: l.DayMonth(d, d)})
	}
	byActivity := map[int64][]engine.Session{}
	for i := range w.Days {
		w.Days[i].Idle = true
		for _, s := range sn.Timetable.Day(w.Days[i].Date) {
			if s.Cancelled {
				continue
			}
			w.Days[i].Idle = false
			class, _ := sn.Timetable.Class(s.ClassID)
			byActivity[class.ActivityID] = append(byActivity[class.ActivityID], s)
		}
	}
	for _, a := range sn.State.Activities {
		if sessions := byActivity[a.ID]; len(sessions) > 0 {
			w.Tables = append(w.Tables, layout(sn, l, a, sessions, from, staff))
		}
	}
	w.Paper = paper(&w)
	return w
}

// layout puts an activity's sessions of the week into rows by start time
// and columns by date.
func layout(sn *models.Snapshot, l *locale.Locale, a engine.Activity, sessions []engine.Session, from engine.Date, staff bool) table {
	t := table{Activity: a.Name, Color: accent(a.Color)}
	var starts []engine.LocalTime
	for _, s := range sessions {
		starts = append(starts, s.Start)
	}
	slices.Sort(starts)
	for _, st := range slices.Compact(starts) {
		t.Rows = append(t.Rows, row{Start: st, From: l.Time(st), Cells: make([][]cell, 7)})
	}
	for _, s := range sessions {
		i := slices.IndexFunc(t.Rows, func(r row) bool { return r.Start == s.Start })
		col := s.Date.Sub(from)
		t.Rows[i].Cells[col] = append(t.Rows[i].Cells[col], describe(sn, l, a, &s, staff))
	}
	for i := range t.Rows {
		t.Rows[i].shareEnd(l)
	}
	return t
}

// shareEnd sets Span, and Usual on every cell, when all the row's
// sessions end at the same time.
func (r *row) shareEnd(l *locale.Locale) {
	var end engine.LocalTime
	for _, sessions := range r.Cells {
		for _, c := range sessions {
			if end != 0 && c.End != end {
				return
			}
			end = c.End
		}
	}
	r.Span = l.ShortSpan(r.Start, end)
	for _, sessions := range r.Cells {
		for i := range sessions {
			sessions[i].Usual = true
		}
	}
}

// describe writes one session: the class time's label, or the activity's
// name when it has none, and its staff unless they are hidden.
func describe(sn *models.Snapshot, l *locale.Locale, a engine.Activity, s *engine.Session, staff bool) cell {
	c := cell{Key: s.Key(), Date: s.Date, Start: s.Start, End: s.End, Label: s.Label, Time: l.Span(s.Start, s.End)}
	if strings.TrimSpace(c.Label) == "" {
		c.Label = a.Name
	}
	if staff {
		var names []string
		for _, id := range s.StaffIDs {
			if p, ok := sn.Timetable.StaffMember(id); ok {
				names = append(names, p.Name)
			}
		}
		c.Staff = strings.Join(names, l.Text("list.comma", nil))
	}
	if s.Moved() {
		c.Moved = l.Text("page.movedFrom", map[string]any{"Date": l.DayMonth(s.Origin().Date, s.Date)})
	}
	return c
}

var hexColor = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// accent is an activity's colour when it is a plain hex colour; anything
// else is left out rather than written into a style attribute.
func accent(color string) string {
	if hexColor.MatchString(color) {
		return color
	}
	return ""
}
