package engine

import "slices"

// SeriesEdit says what an edit of a series changes, for EditSeries: which
// of the rules that make its sessions, and from which week.
type SeriesEdit struct {
	// From is a date in the first week the edit applies from; the zero Date
	// is this week.
	From Date
	// Anchor is set when the edit moves the series' first week.
	Anchor bool
	// End, when set, is the series' new exclusive end (the zero Date: open).
	End *Date
	// Cycle, when set, is the new length of its rotation.
	Cycle *int
	// Entries is set when the edit replaces the series' entries.
	Entries bool
	// Carry keeps the day changes whose session the edited rules still
	// make; without it every change of the series' sessions from the edit
	// on is removed.
	Carry bool
}

// EditSeries is the policy for editing a running series: it applies an
// edit without rewriting the weeks that already happened.
//
//   - The edit applies from the week of ed.From, this week when it is zero,
//     and never from an earlier week than this one.
//   - It applies in place when it changes none of the rules that make
//     sessions (a name, plans), when the series has not started by then, or
//     when it only moves the end to that week or later.
//   - Otherwise the series splits there (SplitSeries): a new series keeps
//     the weeks before as they were, and the series itself (its id, plans
//     and subscribers) goes on with the edit. Unless the cycle changes too,
//     the edit counts its entries' weeks as the series did before, and week
//     renumbers them for the series after the split.
//   - A series whose weeks have all happened cannot change, and one that
//     has run cannot move its start.
//   - Day changes from that week on whose session the edited rules no
//     longer make (every change of the series' sessions, without ed.Carry)
//     are removed and returned.
//   - The edit is refused when the result is not valid or when it would
//     change a day before today: this week's past days, and any earlier day
//     an edit in place reaches (a start moved earlier, an ended series given
//     a later end, a day change that applies again and moves a session into
//     an earlier week).
//
// apply makes the edit's changes on s, as the caller's input says: week
// maps a week of the edit's numbering to the series' own (the identity when
// nothing split). EditSeries returns the series that keeps the weeks before
// a split (0 when the edit applied in place) and the day changes removed; on
// an error s is as it was.
func (s *State) EditSeries(id int64, ed SeriesEdit, today Date, newID func() int64, apply func(week func(int) int) error) (kept int64, lost []SessionRef, err error) {
	w := Words(s.Business.Kind)
	i := slices.IndexFunc(s.Series, func(x Series) bool { return x.ID == id })
	if i < 0 {
		return 0, nil, Errorf(NotFound, "id", "There is no %s with id %d", w.Series.One, id)
	}
	old := s.Series[i]
	thisWeek := today.WeekStart(s.Business.WeekStart)
	at := thisWeek
	if ed.From != 0 {
		if at = ed.From.WeekStart(s.Business.WeekStart); at < thisWeek {
			return 0, nil, Errorf(Invalid, "from", "%s %q: the week of %s has already happened; an edit can apply from this week (%s) on",
				w.Series.Title(), old.Name, at, thisWeek)
		}
	}
	endOnly := ed.End != nil && !ed.Anchor && ed.Cycle == nil && !ed.Entries
	shapes := ed.End != nil || ed.Anchor || ed.Cycle != nil || ed.Entries
	newEnd := old.End
	if ed.End != nil {
		newEnd = *ed.End
	}
	before := s.Clone()
	fail := func(err error) (int64, []SessionRef, error) {
		*s = before
		return 0, nil, err
	}
	week := func(w int) int { return w }
	switch {
	case !shapes || at <= old.Anchor || (endOnly && (newEnd == 0 || newEnd >= at)):
		// Nothing before at changes: in place.
	case old.End != 0 && old.End <= at:
		return 0, nil, Errorf(Invalid, "from", "%s %q ended on %s; its weeks have all happened and cannot be changed",
			w.Series.Title(), old.Name, old.End.AddDays(-1))
	case ed.Anchor:
		return 0, nil, Errorf(Invalid, "anchorDate", "%s %q has already run since %s: it keeps its start, and the change applies from %s",
			w.Series.Title(), old.Name, old.Anchor, at)
	default:
		var shift int
		if kept, shift, err = s.SplitSeries(id, at, newID); err != nil {
			return fail(err)
		}
		if ed.Cycle == nil || *ed.Cycle == old.Cycle {
			week = func(w int) int { return shiftWeek(w, shift, old.Cycle) }
		}
	}
	if err := apply(week); err != nil {
		return fail(err)
	}
	// What apply made is checked before anything is compiled from it: an
	// entry naming a class time or class that does not exist is NOT_FOUND,
	// not a nil class time. Dropping the changes that are lost below only
	// removes rows, which breaks no rule.
	if err := Validate(*s); err != nil {
		return fail(err)
	}
	lost = lostChanges(before, *s, id, at, !ed.Carry)
	s.Changes = slices.DeleteFunc(s.Changes, func(c DayChange) bool { return slices.Contains(lost, c.Ref) })
	if d, changed := firstPastDifference(before, *s, id, at, today); changed {
		return fail(Errorf(Invalid, "from", "%s %q: the edit would change %s, which has already happened; it can apply from %s on",
			w.Series.Title(), old.Name, d, thisWeek.AddDays(7)))
	}
	return kept, lost, nil
}

// lostChanges lists the day changes dated from date on that named a session
// of a series in before and name no session in after: the edited rules no
// longer make the session they change. With all, it lists every change of
// the series' sessions from date on, made or not.
func lostChanges(before, after State, series int64, from Date, all bool) []SessionRef {
	was, is := compile(before), compile(after)
	var lost []SessionRef
	for _, c := range before.Changes {
		if c.Ref.Date < from {
			continue
		}
		s, ok := was.original(c.Ref)
		if !ok || !slices.ContainsFunc(s.Series, func(sw SeriesWeek) bool { return sw.SeriesID == series }) {
			continue
		}
		if _, ok := is.original(c.Ref); all || !ok {
			lost = append(lost, c.Ref)
		}
	}
	return lost
}

// firstPastDifference returns the first date before today on which an edit
// of series id, applied from the week at, changes what happens. Splitting
// keeps the weeks before at as they were, but an edit in place can reach
// further back: a start moved earlier, an ended series given a later end, or
// a day change of a session from at on that the edit makes again and that
// moves it into an earlier week. Those dates are compared too.
func firstPastDifference(before, after State, id int64, at, today Date) (Date, bool) {
	from := at
	old := before.Series[slices.IndexFunc(before.Series, func(x Series) bool { return x.ID == id })]
	if i := slices.IndexFunc(after.Series, func(x Series) bool { return x.ID == id }); i >= 0 {
		from = min(from, after.Series[i].Anchor)
		if old.End != 0 && (after.Series[i].End == 0 || after.Series[i].End > old.End) {
			from = min(from, old.End)
		}
	}
	if d, changed := firstDifference(before, after, from, today); changed {
		return d, true
	}
	for _, c := range after.Changes {
		if c.Date != 0 && c.Date < from && c.Ref.Date >= from {
			if d, changed := firstDifference(before, after, c.Date, min(c.Date+1, today)); changed {
				return d, true
			}
		}
	}
	return 0, false
}

// firstDifference returns the first date in [from, to) on which a and b
// hold different sessions, comparing what happens (date, times, room,
// class, staff, cancellation, the series listed) and not the week numbers
// of rotations, which a split renumbers.
func firstDifference(a, b State, from, to Date) (Date, bool) {
	ta, tb := compile(a), compile(b)
	for d := from; d < to; d++ {
		if !slices.EqualFunc(ta.Day(d), tb.Day(d), sameHappening) {
			return d, true
		}
	}
	return 0, false
}

func sameHappening(x, y Session) bool {
	return x.Key() == y.Key() && x.Date == y.Date && x.Start == y.Start && x.End == y.End && x.RoomID == y.RoomID &&
		x.ClassID == y.ClassID && slices.Equal(x.StaffIDs, y.StaffIDs) && x.Cancelled == y.Cancelled &&
		slices.EqualFunc(x.Series, y.Series, func(p, q SeriesWeek) bool { return p.SeriesID == q.SeriesID })
}
