package graph

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/locale"
)

// A refused write suggests (docs/assistant.md, Suggestions): the CLASH or
// STAFF_UNAVAILABLE refusal of a new or moved class time, series entry or
// day change carries, in extensions.suggestions, the nearest few changes
// of its input that the guarded write would save. The changes are only
// proposed here; each is decided by the write's own verdict on a copy of
// the schedule (models.Try), the same proof the real mutation makes.

// suggestionKind is what a suggestion changes.
type suggestionKind string

const (
	sameRoomOtherTime suggestionKind = "SAME_ROOM_OTHER_TIME"
	otherRoom         suggestionKind = "OTHER_ROOM"
	otherWeek         suggestionKind = "OTHER_WEEK"
	otherStaff        suggestionKind = "OTHER_STAFF"
)

const (
	// maxSuggestions is how many suggestions a refusal carries at most.
	maxSuggestions = 4
	// maxTrials bounds the work a refusal spends on suggestions: how many
	// changes it tries, whatever they answer. Each trial is a proof of
	// the changed schedule carried on from the refused write's (a small
	// part of a write), so a refusal with suggestions costs at most this
	// many such proofs more than one without.
	maxTrials = 24
	// suggestStep is how far apart the other times of a suggestion are.
	suggestStep = 15
)

// The hours other times are looked for in, unless the refused time is
// outside them.
var dayOpens, dayCloses = engine.MustTime("06:00"), engine.MustTime("22:00")

// suggestion is one change of a refused write's input that the guarded
// write would save: input is the mutation's input argument as it was sent,
// with the change made.
type suggestion struct {
	kind  suggestionKind
	input map[string]any
	// What the message says: the room and span, the week of the rotation,
	// or the staff member.
	room       string
	start, end engine.LocalTime
	week       int
	staff      string
}

// candidate is a suggestion before its trial: edit is the write of its
// input.
type candidate struct {
	suggestion
	edit func(*models.Edit) error
}

// suggested is a refusal with the suggestions found for it.
type suggested struct {
	error
	list []suggestion
}

func (s *suggested) Unwrap() error { return s.error }

// suggestionsOf returns the suggestions a refusal carries, and whether it
// is a refusal that suggests at all.
func suggestionsOf(err error) ([]suggestion, bool) {
	var s *suggested
	if !errors.As(err, &s) {
		return nil, false
	}
	return s.list, true
}

// suggestionsJSON writes suggestions as extensions.suggestions lists them,
// their messages in the locale's words for a business of kind.
func suggestionsJSON(list []suggestion, l *locale.Locale, kind engine.Kind) []map[string]any {
	out := make([]map[string]any, len(list))
	for i, s := range list {
		out[i] = map[string]any{"kind": string(s.kind), "input": s.input, "message": s.message(l, kind)}
	}
	return out
}

// message says what the suggestion changes, in the business's words.
func (s *suggestion) message(l *locale.Locale, kind engine.Kind) string {
	data := map[string]any{"Room": s.room, "Span": l.Span(s.start, s.end), "Week": l.Number(s.week), "Name": s.staff,
		"Staff": l.Words(kind).Staff.One}
	return l.Text("suggestion."+string(s.kind), data)
}

// suggester finds the suggestions of one write, should it be refused.
type suggester struct {
	raw   map[string]any // the mutation's input argument as sent
	off   bool           // see Resolver.NoSuggestions
	asked bool           // the write was refused for what it adds
	list  []suggestion
}

// suggestOn is the suggester of the mutation resolving in ctx, whose input
// argument is arg.
func (r *Resolver) suggestOn(ctx context.Context, arg string) *suggester {
	sg := &suggester{off: r.NoSuggestions}
	if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Field.Field != nil && graphql.HasOperationContext(ctx) {
		sg.raw, _ = fc.Field.ArgumentMap(graphql.GetOperationContext(ctx).Variables)[arg].(map[string]any)
	}
	return sg
}

// on has the write e suggest, once refused, the candidates build lists
// for its refusal: one list per kind, nearest first. The candidates'
// writes run only once the write is refused, so what they record for a
// payload (a new row's id) is never read.
func (sg *suggester) on(e *models.Edit, build func(refusal error, before *models.Snapshot) [][]candidate) {
	if sg.off {
		return
	}
	e.Refused = func(refusal error, try models.Try) {
		sg.asked = true
		sg.list, _ = pick(func(c *candidate) bool { return try(c.edit) }, build(refusal, e.Before))
	}
}

// wrap gives a refusal the suggestions found for it.
func (sg *suggester) wrap(err error) error {
	if err == nil || !sg.asked {
		return err
	}
	return &suggested{error: err, list: sg.list}
}

// pick tries candidates, nearest first in each kind, and keeps those that
// succeed: at most maxSuggestions, after at most maxTrials trials. The
// kinds take turns by what they have given: a suggestion found counts as
// a fair share of the trials (maxTrials over the kinds) spent, so a kind
// that always succeeds does not crowd out the others, and one that never
// does stops taking turns once it has spent more than its share. It
// returns how many it tried.
func pick(try func(*candidate) bool, kinds [][]candidate) ([]suggestion, int) {
	var out []suggestion
	share := maxTrials / max(len(kinds), 1)
	next, found := make([]int, len(kinds)), make([]int, len(kinds))
	score := func(k int) int { return found[k]*share + next[k] }
	trials := 0
	for len(out) < maxSuggestions && trials < maxTrials {
		k := -1
		for i := range kinds {
			if next[i] < len(kinds[i]) && (k < 0 || score(i) < score(k)) {
				k = i
			}
		}
		if k < 0 {
			break
		}
		c := &kinds[k][next[k]]
		next[k]++
		trials++
		if try(c) {
			out = append(out, c.suggestion)
			found[k]++
		}
	}
	return out, trials
}

// span is where and when a class time or a session runs.
type span struct {
	room       int64
	start, end engine.LocalTime
}

// otherTimes are the spans of p's length in its room, nearest first, every
// suggestStep minutes either side within the day's hours.
func otherTimes(p span) []span {
	lo, hi := min(dayOpens, p.start), max(dayCloses, p.end)
	length := p.end - p.start
	var out []span
	for off := engine.LocalTime(suggestStep); ; off += suggestStep {
		later, earlier := p.start+off, p.start-off
		inLater, inEarlier := later+length <= hi, earlier >= lo
		if !inLater && !inEarlier {
			return out
		}
		if inLater {
			out = append(out, span{p.room, later, later + length})
		}
		if inEarlier {
			out = append(out, span{p.room, earlier, earlier + length})
		}
	}
}

// otherRooms are the spans of p in every other room, rooms of as many
// units first, then the nearest in size.
func otherRooms(st *engine.State, p span) []span {
	units := 1
	for _, r := range st.Rooms {
		if r.ID == p.room {
			units = r.Units()
		}
	}
	rooms := slices.DeleteFunc(slices.Clone(st.Rooms), func(r engine.Room) bool { return r.ID == p.room })
	slices.SortStableFunc(rooms, func(a, b engine.Room) int { return abs(a.Units()-units) - abs(b.Units()-units) })
	out := make([]span, len(rooms))
	for i, r := range rooms {
		out[i] = span{r.ID, p.start, p.end}
	}
	return out
}

func abs(n int) int { return max(n, -n) }

// otherWeeks are the weeks of a cycle other than week, nearest first.
func otherWeeks(week, cycle int) []int {
	var out []int
	for d := 1; d < cycle; d++ {
		for _, w := range []int{week + d, week - d} {
			if w >= 1 && w <= cycle && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// missing are the staff a refusal names among staff: those double-booked,
// and those away or outside their hours.
func missing(refusal error, st *engine.State, staff []int64) []int64 {
	var out []int64
	add := func(id int64) {
		if slices.Contains(staff, id) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	var clash *models.ClashError
	var away *models.UnavailableError
	switch {
	case errors.As(refusal, &clash):
		for _, c := range clash.Clashes {
			if c.Staff == "" {
				continue
			}
			for _, s := range st.Staff {
				if strings.EqualFold(s.Name, c.Staff) {
					add(s.ID)
				}
			}
		}
	case errors.As(refusal, &away):
		for _, u := range away.NeedsCover {
			add(u.StaffID)
		}
	}
	return out
}

// replacements are the staff lists that give activity with the first of
// the missing replaced by someone qualified who is not in it yet: those
// qualified for it by name first, then those who may give anything.
func replacements(t *engine.Timetable, activity int64, staff, missing []int64) [][]int64 {
	if len(missing) == 0 {
		return nil
	}
	named := map[int64]bool{}
	for _, q := range t.State().Qualifications {
		if q.ActivityID == activity {
			named[q.StaffID] = true
		}
	}
	var others []engine.Staff
	for _, s := range t.State().Staff {
		if !slices.Contains(staff, s.ID) && t.Qualified(s.ID, activity) {
			others = append(others, s)
		}
	}
	slices.SortStableFunc(others, func(a, b engine.Staff) int {
		if named[a.ID] != named[b.ID] {
			if named[a.ID] {
				return -1
			}
			return 1
		}
		return 0
	})
	var out [][]int64
	for _, s := range others {
		list := slices.Clone(staff)
		list[slices.Index(list, missing[0])] = s.ID
		out = append(out, list)
	}
	return out
}

// roomName and staffName are what a suggestion's message calls a room and
// a staff member.
func roomName(st *engine.State, id int64) string {
	if i := slices.IndexFunc(st.Rooms, func(r engine.Room) bool { return r.ID == id }); i >= 0 {
		return st.Rooms[i].Name
	}
	return ""
}

func staffName(st *engine.State, id int64) string {
	if i := slices.IndexFunc(st.Staff, func(s engine.Staff) bool { return s.ID == id }); i >= 0 {
		return st.Staff[i].Name
	}
	return ""
}

// with is a copy of the input m as sent, with the fields of set changed.
func with(m map[string]any, set map[string]any) map[string]any {
	out := deepCopy(m)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range set {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// deepCopy copies an input as sent (maps, lists and scalars).
func deepCopy(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	var out map[string]any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if d.Decode(&out) != nil {
		return nil
	}
	return out
}

func idText(id int64) string { return strconv.FormatInt(id, 10) }

func idTexts(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = idText(id)
	}
	return out
}

func weekdayName(d time.Weekday) string { return strings.ToUpper(d.String()) }

// classTimeSuggestions are the candidates of a class time placed at p: the
// same room at other times, and the same time in other rooms. move makes
// the input and the write of another span; unchanged skips the span the
// class time already has (a move back is no suggestion).
func classTimeSuggestions(st *engine.State, p span, unchanged func(span) bool, move func(span) (map[string]any, func(*models.Edit) error)) [][]candidate {
	var times, rooms []candidate
	add := func(list *[]candidate, kind suggestionKind, s span) {
		if unchanged(s) {
			return
		}
		input, edit := move(s)
		*list = append(*list, candidate{suggestion{kind: kind, input: input, room: roomName(st, s.room), start: s.start, end: s.end}, edit})
	}
	for _, s := range otherTimes(p) {
		add(&times, sameRoomOtherTime, s)
	}
	for _, s := range otherRooms(st, p) {
		add(&rooms, otherRoom, s)
	}
	return [][]candidate{times, rooms}
}

// createClassTime has a createClassTime suggest other spans.
func (sg *suggester) createClassTime(e *models.Edit, input model.CreateClassTimeInput, apply func(model.CreateClassTimeInput) func(*models.Edit) error) {
	sg.on(e, func(_ error, before *models.Snapshot) [][]candidate {
		p := span{input.RoomID, input.Start, input.End}
		return classTimeSuggestions(&before.State, p, func(span) bool { return false }, func(s span) (map[string]any, func(*models.Edit) error) {
			in := input
			in.RoomID, in.Start, in.End = s.room, s.start, s.end
			return with(sg.raw, map[string]any{"roomId": idText(s.room), "start": s.start.String(), "end": s.end.String()}), apply(in)
		})
	})
}

// updateClassTime has an updateClassTime of class time id suggest other
// spans on the weekday it asks for.
func (sg *suggester) updateClassTime(e *models.Edit, id int64, input model.UpdateClassTimeInput, apply func(model.UpdateClassTimeInput) func(*models.Edit) error) {
	sg.on(e, func(_ error, before *models.Snapshot) [][]candidate {
		was, ok := before.Timetable.ClassTime(id)
		if !ok {
			return nil
		}
		is := was
		if updateClassTime(&is, input) != nil {
			return nil
		}
		unchanged := func(s span) bool {
			return is.Weekday == was.Weekday && s == span{was.RoomID, was.Start, was.End}
		}
		return classTimeSuggestions(&before.State, span{is.RoomID, is.Start, is.End}, unchanged, func(s span) (map[string]any, func(*models.Edit) error) {
			in := input
			in.Start, in.End = graphql.OmittableOf(&s.start), graphql.OmittableOf(&s.end)
			fields := map[string]any{"start": s.start.String(), "end": s.end.String()}
			if _, given := input.RoomID.ValueOK(); given || s.room != is.RoomID {
				in.RoomID, fields["roomId"] = graphql.OmittableOf(&s.room), idText(s.room)
			}
			return with(sg.raw, fields), apply(in)
		})
	})
}

// classTimeInput describes a class time as a series entry's classTime
// does, as typed and as sent.
func classTimeInput(ct engine.ClassTime) (model.CreateClassTimeInput, map[string]any) {
	in := model.CreateClassTimeInput{RoomID: ct.RoomID, Weekday: ct.Weekday, Start: ct.Start, End: ct.End}
	m := map[string]any{"roomId": idText(ct.RoomID), "weekday": weekdayName(ct.Weekday), "start": ct.Start.String(), "end": ct.End.String()}
	if ct.Label != "" {
		in.Label, m["label"] = &ct.Label, ct.Label
	}
	if ct.Capacity > 0 {
		in.Capacity, m["capacity"] = &ct.Capacity, ct.Capacity
	}
	if ct.Type != "" {
		in.Type, m["type"] = &ct.Type, ct.Type
	}
	if ct.Buffer > 0 {
		in.BufferMinutes, m["bufferMinutes"] = &ct.Buffer, ct.Buffer
	}
	if ct.Inactive {
		no := false
		in.Active, m["active"] = &no, false
	}
	if ct.Units > 0 {
		in.Units, m["units"] = &ct.Units, ct.Units
	}
	return in, m
}

// seriesEntries has a createSeries or updateSeries suggest changes of one
// of its entries: the entries the refusal is about, nearest first, each
// in the same room at other times, the same time in other rooms, another
// week of the rotation (of cycle weeks) and, for a staff member missing,
// another qualified staff member. apply is the write of the entries.
func (sg *suggester) seriesEntries(e *models.Edit, entries []model.SeriesEntryInput, cycle func(before *models.Snapshot) int,
	apply func([]model.SeriesEntryInput) func(*models.Edit) error) {
	sg.on(e, func(refusal error, before *models.Snapshot) [][]candidate {
		st := &before.State
		rawEntries, _ := sg.raw["entries"].([]any)
		if len(rawEntries) != len(entries) {
			return nil
		}
		kinds := make([][]candidate, 4)
		for _, i := range involved(refusal, before, entries) {
			ei := entries[i]
			ct, ok := entryClassTime(before, ei)
			if !ok {
				continue
			}
			rawEntry, _ := rawEntries[i].(map[string]any)
			change := func(kind suggestionKind, set map[string]any, edited model.SeriesEntryInput) candidate {
				list := slices.Clone(entries)
				list[i] = edited
				raws := slices.Clone(rawEntries)
				raws[i] = with(rawEntry, set)
				return candidate{suggestion{kind: kind, input: with(sg.raw, map[string]any{"entries": raws})}, apply(list)}
			}
			p := span{ct.RoomID, ct.Start, ct.End}
			for k, spans := range [][]span{otherTimes(p), otherRooms(st, p)} {
				for _, s := range spans {
					moved := ct
					moved.RoomID, moved.Start, moved.End = s.room, s.start, s.end
					typed, m := classTimeInput(moved)
					edited := ei
					edited.ClassTimeID, edited.ClassTime = nil, &typed
					c := change([]suggestionKind{sameRoomOtherTime, otherRoom}[k], map[string]any{"classTimeId": nil, "classTime": m}, edited)
					c.room, c.start, c.end = roomName(st, s.room), s.start, s.end
					kinds[k] = append(kinds[k], c)
				}
			}
			for _, w := range otherWeeks(ei.Week, cycle(before)) {
				edited := ei
				edited.Week = w
				c := change(otherWeek, map[string]any{"week": w}, edited)
				c.week = w
				kinds[2] = append(kinds[2], c)
			}
			activity, staff, ok := entryClass(before, ei)
			if !ok {
				continue
			}
			for _, list := range replacements(before.Timetable, activity, staff, missing(refusal, st, staff)) {
				edited := ei
				edited.ClassID, edited.Class = nil, &model.CreateClassInput{ActivityID: activity, StaffIds: list}
				c := change(otherStaff, map[string]any{"classId": nil, "class": map[string]any{"activityId": idText(activity), "staffIds": idTexts(list)}}, edited)
				c.staff = staffName(st, list[slices.IndexFunc(list, func(id int64) bool { return !slices.Contains(staff, id) })])
				kinds[3] = append(kinds[3], c)
			}
		}
		return kinds
	})
}

// seriesCycle is the cycle an updateSeries of series id leaves it with.
func seriesCycle(before *models.Snapshot, id int64, input model.UpdateSeriesInput) int {
	if c := input.CycleWeeks.Value(); c != nil {
		return *c
	}
	if s, ok := before.Timetable.SeriesByID(id); ok {
		return s.Cycle
	}
	return 1
}

// entryClassTime is the class time an entry names or describes.
func entryClassTime(before *models.Snapshot, ei model.SeriesEntryInput) (engine.ClassTime, bool) {
	switch {
	case ei.ClassTimeID != nil:
		return before.Timetable.ClassTime(*ei.ClassTimeID)
	case ei.ClassTime != nil:
		ct, err := newClassTime(0, *ei.ClassTime)
		return ct, err == nil
	}
	return engine.ClassTime{}, false
}

// entryClass is the activity and staff of the class an entry names or
// describes.
func entryClass(before *models.Snapshot, ei model.SeriesEntryInput) (int64, []int64, bool) {
	switch {
	case ei.ClassID != nil:
		c, ok := before.Timetable.Class(*ei.ClassID)
		return c.ActivityID, c.StaffIDs, ok
	case ei.Class != nil:
		return ei.Class.ActivityID, ei.Class.StaffIds, len(ei.Class.StaffIds) > 0
	}
	return 0, nil, false
}

// involved are the indexes of the entries a refusal is about: those whose
// class time is where and when one of its sessions is. None found, all
// are.
func involved(refusal error, before *models.Snapshot, entries []model.SeriesEntryInput) []int {
	var where []span
	var wd []time.Weekday
	note := func(s *engine.Session) {
		where, wd = append(where, span{s.RoomID, s.Start, s.End}), append(wd, s.Date.Weekday())
	}
	var clash *models.ClashError
	var away *models.UnavailableError
	switch {
	case errors.As(refusal, &clash):
		for _, c := range clash.Clashes {
			for i := range c.Sessions {
				note(&c.Sessions[i])
			}
		}
	case errors.As(refusal, &away):
		for _, u := range away.NeedsCover {
			if u.Dated {
				note(&u.Session)
			} else if ct, ok := before.Timetable.ClassTime(u.ClassTimeID); ok {
				where, wd = append(where, span{ct.RoomID, ct.Start, ct.End}), append(wd, ct.Weekday)
			}
		}
	}
	var out, all []int
	for i, ei := range entries {
		all = append(all, i)
		ct, ok := entryClassTime(before, ei)
		if !ok {
			continue
		}
		for j, s := range where {
			if s == (span{ct.RoomID, ct.Start, ct.End}) && wd[j] == ct.Weekday {
				out = append(out, i)
				break
			}
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// changeSession has a day change of the session ref suggest the same room
// at other times, the same time in other rooms and, for a staff member
// missing, another qualified staff member, from the session as the change
// would leave it. A suggestion that leaves the session as it is now is
// none.
func (sg *suggester) changeSession(e *models.Edit, ref engine.SessionRef, patch engine.ChangePatch, apply func(engine.ChangePatch) func(*models.Edit) error) {
	sg.on(e, func(refusal error, before *models.Snapshot) [][]candidate {
		st := &before.State
		now, ok := before.Timetable.Session(ref)
		if !ok {
			return nil
		}
		is := span{now.RoomID, now.Start, now.End}
		set(&is.room, patch.RoomID)
		set(&is.start, patch.Start)
		set(&is.end, patch.End)
		date := now.Date
		set(&date, patch.Date)
		staff := now.StaffIDs
		class := now.ClassID
		if patch.ClassID != nil {
			class = *patch.ClassID
			if c, ok := before.Timetable.Class(class); ok {
				staff = c.StaffIDs
			}
		}
		if patch.StaffIDs != nil {
			staff = patch.StaffIDs
		}
		unchanged := func(s span, list []int64) bool {
			return date == now.Date && s == span{now.RoomID, now.Start, now.End} && slices.Equal(list, now.StaffIDs)
		}
		kinds := classTimeSuggestions(st, is, func(s span) bool { return unchanged(s, staff) }, func(s span) (map[string]any, func(*models.Edit) error) {
			p := patch
			p.RoomID, p.Start, p.End = &s.room, &s.start, &s.end
			fields := map[string]any{"start": s.start.String(), "end": s.end.String()}
			if s.room != is.room || patch.RoomID != nil {
				fields["roomId"] = idText(s.room)
			} else {
				p.RoomID = nil
			}
			return with(sg.raw, fields), apply(p)
		})
		var staffed []candidate
		if c, ok := before.Timetable.Class(class); ok {
			for _, list := range replacements(before.Timetable, c.ActivityID, staff, missing(refusal, st, staff)) {
				if unchanged(is, list) {
					continue
				}
				p := patch
				p.StaffIDs = list
				added := list[slices.IndexFunc(list, func(id int64) bool { return !slices.Contains(staff, id) })]
				staffed = append(staffed, candidate{suggestion{kind: otherStaff, input: with(sg.raw, map[string]any{"staffIds": idTexts(list)}),
					staff: staffName(st, added)}, apply(p)})
			}
		}
		return append(kinds, staffed)
	})
}
