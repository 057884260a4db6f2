package graph

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/solve"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/locale"
)

// Limits of proposeTimetable.
const (
	maxDemandLines   = 100
	defaultTimeLimit = 5  // seconds
	maxTimeLimit     = 60 // seconds
	// workPerSecond turns a time limit into the search's work budget, so
	// that the same input and seed give the same proposal: about half of
	// what the gym benchmark searches a second on one core, so the
	// deadline, a guard, ends a search only on a loaded machine.
	workPerSecond = 4_000_000
	// proposalLife is how long a proposal is kept for applyProposal, and
	// proposalsKept how many of one business are.
	proposalLife  = time.Hour
	proposalsKept = 20
	// repairs is how many times a proposal the clash proof refuses is
	// cut down (the places it names dropped) and proven again.
	repairs = 4
)

// Proposals are the proposals made and not yet applied, kept in memory per
// business for proposalLife. A proposal is a preview: a restart, or
// another server behind the same database, answers NOT_FOUND for it and
// the client proposes again — cheaper than a table of previews, and what
// is applied is proven again by the guarded write whatever was kept.
type Proposals struct {
	mu   sync.Mutex
	byID map[proposalKey]*proposal
	rng  *rand.Rand
}

type proposalKey struct{ business, id int64 }

// NewProposals makes an empty store.
func NewProposals() *Proposals {
	return &Proposals{byID: map[proposalKey]*proposal{}, rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 35))}
}

func (p *Proposals) keep(business int64, pr *proposal, now time.Time) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var mine []proposalKey
	for k, v := range p.byID {
		if now.Sub(v.made) > proposalLife {
			delete(p.byID, k)
		} else if k.business == business {
			mine = append(mine, k)
		}
	}
	if len(mine) >= proposalsKept {
		slices.SortFunc(mine, func(a, b proposalKey) int { return p.byID[a].made.Compare(p.byID[b].made) })
		for _, k := range mine[:len(mine)-proposalsKept+1] {
			delete(p.byID, k)
		}
	}
	id := p.rng.Int64N(1<<53-1) + 1
	pr.made = now
	p.byID[proposalKey{business, id}] = pr
	return id
}

func (p *Proposals) get(business, id int64, now time.Time) *proposal {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr := p.byID[proposalKey{business, id}]
	if pr == nil || now.Sub(pr.made) > proposalLife {
		return nil
	}
	return pr
}

func (p *Proposals) drop(business, id int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.byID, proposalKey{business, id})
}

// proposal is what applyProposal writes: the frame and the placements.
type proposal struct {
	made       time.Time
	from       engine.Date
	cycle      int
	keep       model.KeepTimetable
	kept       []int64 // series kept with keep SERIES
	lines      []demandLine
	placements []solve.Placement
}

// demandLine is what a proposal's series are made of, per line.
type demandLine struct {
	name     string
	activity int64
	class    int64 // an existing class: its staff give every session
	units    int
}

// proposalRows is what a proposal's edit made, by its temporary ids.
type proposalRows struct {
	series     []int64 // per line, 0 for a line that places nothing
	classTimes []int64 // per placement
}

// apply makes the series, classes and class times of pr in e, ending the
// series pr does not keep at its first week.
func (pr *proposal) apply(e *models.Edit) proposalRows {
	if pr.keep != model.KeepTimetableEverything {
		for i := range e.State.Series {
			s := &e.State.Series[i]
			if s.Anchor >= pr.from || (s.End != 0 && s.End <= pr.from) {
				continue
			}
			if pr.keep == model.KeepTimetableSeries && slices.Contains(pr.kept, s.ID) {
				continue
			}
			s.End = pr.from
		}
	}
	out := proposalRows{series: make([]int64, len(pr.lines)), classTimes: make([]int64, len(pr.placements))}
	type ctKey struct {
		room       int64
		wd         time.Weekday
		start, end engine.LocalTime
		units      int
	}
	classTimes := map[ctKey]int64{}
	for i, p := range pr.placements {
		l := pr.lines[p.Line]
		if out.series[p.Line] == 0 {
			id := e.NewID()
			e.State.Series = append(e.State.Series, engine.Series{ID: id, Name: l.name, Anchor: pr.from, Cycle: pr.cycle})
			out.series[p.Line] = id
		}
		class := l.class
		if class == 0 {
			c, ok := e.State.ClassWith(l.activity, p.Crew)
			if !ok {
				c = engine.Class{ID: e.NewID(), ActivityID: l.activity, StaffIDs: slices.Clone(p.Crew)}
				e.State.Classes = append(e.State.Classes, c)
			}
			class = c.ID
		}
		k := ctKey{p.Room, p.Weekday, p.Start, p.End, l.units}
		ct, ok := classTimes[k]
		if !ok {
			ct = e.NewID()
			e.State.ClassTimes = append(e.State.ClassTimes, engine.ClassTime{ID: ct, RoomID: p.Room, Weekday: p.Weekday, Start: p.Start, End: p.End, Units: l.units})
			classTimes[k] = ct
		}
		out.classTimes[i] = ct
		e.State.Entries = append(e.State.Entries, engine.Entry{ID: e.NewID(), SeriesID: out.series[p.Line], ClassTimeID: ct, ClassID: class, Week: p.Week})
	}
	return out
}

// problem checks the input of proposeTimetable against the business's
// state and turns it into the solver's problem and the proposal's frame.
func problem(tt *engine.Timetable, today engine.Date, in model.ProposeTimetableInput) (solve.Problem, *proposal, error) {
	state := tt.State()
	st := &state
	words := engine.Words(st.Business.Kind)
	pr := &proposal{cycle: 1, keep: model.KeepTimetableEverything}
	between := func(field string, v *int, lo, hi, def int) (int, error) {
		if v == nil {
			return def, nil
		}
		if *v < lo || *v > hi {
			return 0, badInput(field, "%s must be between %d and %d, not %d", field, lo, hi, *v)
		}
		return *v, nil
	}
	var err error
	n := len(in.Demand)
	if _, err = between("demand", &n, 1, maxDemandLines, 0); err != nil {
		return solve.Problem{}, nil, err
	}
	if pr.cycle, err = between("cycleWeeks", in.CycleWeeks, 1, solve.MaxCycle, 1); err != nil {
		return solve.Problem{}, nil, err
	}
	ws := st.Business.WeekStart
	thisWeek := today.WeekStart(ws)
	pr.from = thisWeek + 7
	if in.From != nil {
		if in.From.Weekday() != ws || *in.From < thisWeek {
			return solve.Problem{}, nil, badInput("from", "The first week must start on a %s from %s on, not %s", ws, thisWeek, *in.From)
		}
		pr.from = *in.From
	}
	if in.Keep != nil {
		pr.keep = *in.Keep
	}
	if len(in.SeriesIds) > 0 && pr.keep != model.KeepTimetableSeries {
		return solve.Problem{}, nil, badInput("seriesIds", "seriesIds name the series to keep, with keep: SERIES only")
	}
	for i, id := range in.SeriesIds {
		if _, ok := tt.SeriesByID(id); !ok {
			return solve.Problem{}, nil, namedBy("seriesIds", notFound(words.Series.One, id))
		}
		if slices.Contains(in.SeriesIds[:i], id) {
			return solve.Problem{}, nil, badInput("seriesIds", "%s lists id %d twice; name each once", "seriesIds", id)
		}
	}
	pr.kept = in.SeriesIds
	p := solve.Problem{Frame: solve.Frame{Cycle: pr.cycle, Weights: map[string]int{}}}
	if in.Earliest != nil {
		p.Frame.Earliest = *in.Earliest
	}
	if in.Latest != nil {
		p.Frame.Latest = *in.Latest
	}
	if p.Frame.Latest != 0 && p.Frame.Latest <= p.Frame.Earliest {
		return solve.Problem{}, nil, badInput("latest", "The span must end after it starts: %s to %s", p.Frame.Earliest, p.Frame.Latest)
	}
	for _, w := range in.Weights {
		if !slices.Contains([]string{solve.PrefWindow, solve.PrefDaysApart, solve.PrefSameRoom, solve.PrefSameCoach}, w.Name) {
			return solve.Problem{}, nil, badInput("weights", "A preference is window, daysApart, sameRoom or sameCoach, not %q", w.Name)
		}
		if p.Frame.Weights[w.Name], err = between("weight", &w.Weight, 0, 100, 1); err != nil {
			return solve.Problem{}, nil, err
		}
	}
	// Staff, with their hours from the first week on, and limits.
	limits := map[int64]model.StaffLimitInput{}
	for _, l := range in.Limits {
		if _, ok := tt.StaffMember(l.StaffID); !ok {
			return solve.Problem{}, nil, namedBy("staffId", notFound(words.Staff.One, l.StaffID))
		}
		for _, f := range []struct {
			name string
			v    *int
		}{{"maxMinutes", l.MaxMinutes}, {"maxSessions", l.MaxSessions}, {"restMinutes", l.RestMinutes}} {
			if _, err := between(f.name, f.v, 0, 7*24*60, 0); err != nil {
				return solve.Problem{}, nil, err
			}
		}
		limits[l.StaffID] = l
	}
	for _, s := range st.Staff {
		l := limits[s.ID]
		p.Staff = append(p.Staff, solve.Staff{ID: s.ID, Name: s.Name, Hours: solve.HoursFrom(st, s.ID, pr.from),
			MaxMinutes: deref(l.MaxMinutes), MaxSessions: deref(l.MaxSessions), Rest: deref(l.RestMinutes)})
	}
	for _, r := range st.Rooms {
		room := solve.Room{ID: r.ID, Name: r.Name, Units: r.Units()}
		for _, c := range st.Capacity {
			if c.RoomID == r.ID && !c.Override() {
				room.Levels = append(room.Levels, solve.Level{Weekdays: c.Weekdays, Start: c.Start, End: c.End, Units: c.Units})
			}
		}
		p.Rooms = append(p.Rooms, room)
	}
	for _, d := range in.Demand {
		line, dl, err := demand(st, tt, words, pr.cycle, d)
		if err != nil {
			return solve.Problem{}, nil, err
		}
		p.Lines = append(p.Lines, line)
		pr.lines = append(pr.lines, dl)
	}
	return p, pr, nil
}

// demand checks one demand line.
func demand(st *engine.State, tt *engine.Timetable, words engine.Vocabulary, cycle int, d model.DemandLineInput) (solve.Line, demandLine, error) {
	var l solve.Line
	var dl demandLine
	between := func(field string, v, lo, hi int) error {
		if v < lo || v > hi {
			return badInput(field, "%s must be between %d and %d, not %d", field, lo, hi, v)
		}
		return nil
	}
	switch {
	case (d.ActivityID == nil) == (d.ClassID == nil):
		return l, dl, badInput("activityId", "Give each line of the demand an activityId or a classId, one of them")
	case (d.SessionsPerWeek == nil) == (d.SessionsPerRotation == nil):
		return l, dl, badInput("sessionsPerWeek", "Give each line of the demand sessionsPerWeek or sessionsPerRotation, one of them")
	case d.ClassID != nil && d.StaffIds != nil:
		return l, dl, badInput("staffIds", "staffIds are for a line with an activityId: a class's sessions are given by its own staff")
	}
	if d.SessionsPerWeek != nil {
		if err := between("sessionsPerWeek", *d.SessionsPerWeek, 1, 28); err != nil {
			return l, dl, err
		}
		l.Sessions = *d.SessionsPerWeek
	} else {
		if err := between("sessionsPerRotation", *d.SessionsPerRotation, 1, 28*solve.MaxCycle); err != nil {
			return l, dl, err
		}
		l.Sessions, l.PerRotation = *d.SessionsPerRotation, true
	}
	if err := between("minutes", d.Minutes, 1, 24*60); err != nil {
		return l, dl, err
	}
	l.Minutes = d.Minutes
	if d.ClassID != nil {
		c, ok := tt.Class(*d.ClassID)
		if !ok {
			return l, dl, namedBy("classId", notFound(words.Class.One, *d.ClassID))
		}
		dl.class, dl.activity = c.ID, c.ActivityID
		l.Crews = [][]int64{c.StaffIDs}
	} else {
		if _, ok := tt.Activity(*d.ActivityID); !ok {
			return l, dl, namedBy("activityId", notFound(words.Activity.One, *d.ActivityID))
		}
		dl.activity = *d.ActivityID
		staff := d.StaffIds
		if staff == nil {
			for _, s := range st.Staff {
				if tt.Qualified(s.ID, dl.activity) {
					staff = append(staff, s.ID)
				}
			}
		}
		for i, id := range staff {
			s, ok := tt.StaffMember(id)
			if !ok {
				return l, dl, namedBy("staffIds", notFound(words.Staff.One, id))
			}
			if slices.Contains(staff[:i], id) {
				return l, dl, badInput("staffIds", "%s lists id %d twice; name each once", "staffIds", id)
			}
			if !tt.Qualified(id, dl.activity) {
				return l, dl, badInput("staffIds", "%s may not give that %s: set their qualifications first", s.Name, words.Activity.One)
			}
			l.Crews = append(l.Crews, []int64{id})
		}
	}
	a, _ := tt.Activity(dl.activity)
	dl.name, l.Name = a.Name, a.Name
	for i, id := range d.RoomIds {
		if _, ok := tt.Room(id); !ok {
			return l, dl, namedBy("roomIds", notFound(words.Room.One, id))
		}
		if slices.Contains(d.RoomIds[:i], id) {
			return l, dl, badInput("roomIds", "%s lists id %d twice; name each once", "roomIds", id)
		}
	}
	l.Rooms = d.RoomIds
	if d.RoomIds != nil && len(d.RoomIds) == 0 {
		l.Rooms = nil
	}
	if d.Units != nil {
		if err := between("units", *d.Units, 1, engine.MaxUnits); err != nil {
			return l, dl, err
		}
		l.Units, dl.units = *d.Units, *d.Units
	}
	for i, w := range d.Weeks {
		if err := between("weeks", w, 1, cycle); err != nil {
			return l, dl, err
		}
		if slices.Contains(d.Weeks[:i], w) {
			return l, dl, badInput("weeks", "%s lists id %d twice; name each once", "weeks", w)
		}
	}
	l.Weeks = d.Weeks
	for _, w := range d.Windows {
		if w.End <= w.Start || !w.End.Valid() || !w.Start.Valid() {
			return l, dl, badInput("windows", "The span must end after it starts: %s to %s", w.Start, w.End)
		}
		l.Windows = append(l.Windows, solve.Window{Weekdays: w.Weekdays, Start: w.Start, End: w.End})
	}
	if d.DaysApart != nil {
		if err := between("daysApart", *d.DaysApart, 0, 3); err != nil {
			return l, dl, err
		}
		l.DaysApart = *d.DaysApart
	}
	if d.Weight != nil {
		if err := between("weight", *d.Weight, 1, 100); err != nil {
			return l, dl, err
		}
		l.Weight = *d.Weight
	}
	l.SameRoom, l.SameCoach = deref(d.SameRoom), deref(d.SameCoach)
	return l, dl, nil
}

// occupancy is what the solver sees of the business: its timetable as the
// proposal would leave it (the series it does not keep ended), exactly —
// where each crew may start, by the engine's placement search — and its
// load, by the engine's day resolution (solve.Exact).
func occupancy(st engine.State, today engine.Date, pr *proposal, p solve.Problem) (solve.Occupancy, error) {
	st = st.Clone()
	if pr.keep != model.KeepTimetableEverything {
		for i := range st.Series {
			s := &st.Series[i]
			if s.Anchor < pr.from && (s.End == 0 || s.End > pr.from) && !(pr.keep == model.KeepTimetableSeries && slices.Contains(pr.kept, s.ID)) {
				s.End = pr.from
			}
		}
	}
	var crews [][]int64
	for _, l := range p.Lines {
		crews = append(crews, l.Crews...)
	}
	return solve.Exact(st, today, pr.from, pr.cycle, 15, crews)
}

// propose solves the demand and proves the answer with a dry run of the
// guarded write; places the proof refuses are dropped (unplaced, for the
// timetable) and the rest proven again.
func (r *Resolver) propose(ctx context.Context, in model.ProposeTimetableInput) (*model.Proposal, error) {
	if err := can(ctx, models.EditSchedule); err != nil {
		return nil, err
	}
	sn, err := r.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	now := r.Store.Now()
	st := sn.State
	p, pr, err := problem(sn.Timetable, sn.Today(now), in)
	if err != nil {
		return nil, err
	}
	limit, seed := defaultTimeLimit, 0
	if in.TimeLimit != nil {
		if *in.TimeLimit < 1 || *in.TimeLimit > maxTimeLimit {
			return nil, badInput("timeLimit", "%s must be between %d and %d, not %d", "timeLimit", 1, maxTimeLimit, *in.TimeLimit)
		}
		limit = *in.TimeLimit
	}
	if in.Seed != nil {
		seed = *in.Seed
	}
	occ, err := occupancy(st, sn.Today(now), pr, p)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(time.Duration(limit) * time.Second)
	sol, err := solve.Solve(p, occ, solve.Options{Seed: uint64(seed), Work: int64(limit) * workPerSecond,
		Stop: func() bool { return ctx.Err() != nil || time.Now().After(deadline) }})
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	pr.placements = sol.Placements
	refused := map[int]int{} // line → places the proof refused
	var res *models.Result
	var w proposalRows
	for try := 0; ; try++ {
		res, err = r.Store.Write(ctx, principal(ctx).BusinessID, true, func(e *models.Edit) error {
			w = pr.apply(e)
			return nil
		})
		var away *models.UnavailableError
		bad := map[int64]bool{} // class times the proof names
		switch {
		case errors.As(err, &away):
			for _, u := range away.NeedsCover {
				bad[u.ClassTimeID] = true
				bad[u.Session.ClassTimeID] = true
			}
		case err != nil:
			return nil, err
		default:
			for _, c := range res.Clashes {
				for _, s := range c.Sessions {
					bad[s.ClassTimeID] = true
				}
			}
		}
		if len(bad) == 0 {
			break
		}
		if try == repairs {
			return nil, fmt.Errorf("the clash proof still refuses the proposal after %d repairs", repairs)
		}
		keep := pr.placements[:0]
		for i, pl := range pr.placements {
			if bad[w.classTimes[i]] {
				refused[pl.Line]++
				continue
			}
			keep = append(keep, pl)
		}
		pr.placements = keep
	}
	use(ctx, res.After)
	out := &model.Proposal{Placed: len(pr.placements), Stopped: sol.Stopped, Unplaced: []model.UnplacedLine{}, Series: []engine.Series{}}
	out.Score = &model.ProposalScore{Total: sol.Score.Soft, Unplaced: sol.Score.Unplaced}
	for _, part := range sol.Score.Parts {
		out.Score.Parts = append(out.Score.Parts, model.ScorePart{Name: part.Name, Value: part.Value})
	}
	loc := r.locale(ctx, st.Business) // the reasons' words
	missing := map[int]*model.UnplacedLine{}
	for _, u := range sol.Unplaced {
		line := describe(&st, u)
		missing[u.Line] = &line
	}
	for li, n := range refused {
		line, ok := missing[li]
		if !ok {
			line = &model.UnplacedLine{Line: li}
			missing[li] = line
		}
		line.Missing += n
		line.Constraints = append(line.Constraints, model.UnplacedConstraint{Kind: "timetable"})
		out.Score.Unplaced += n
		line.Reason = reasonText(loc, p, li, line, placedOf(pr, li))
	}
	for li := range p.Lines {
		if u, ok := missing[li]; ok {
			if u.Reason == "" {
				u.Reason = reasonText(loc, p, li, u, placedOf(pr, li))
			}
			out.Unplaced = append(out.Unplaced, *u)
		}
	}
	for _, id := range w.series {
		if id == 0 {
			continue
		}
		if s, ok := res.After.Timetable.SeriesByID(id); ok {
			out.Series = append(out.Series, s)
		}
	}
	out.ID = r.Proposals.keep(principal(ctx).BusinessID, pr, now)
	return out, nil
}

func placedOf(pr *proposal, line int) int {
	n := 0
	for _, p := range pr.placements {
		if p.Line == line {
			n++
		}
	}
	return n
}

// describe turns the solver's reason into the schema's constraints.
func describe(st *engine.State, u solve.Unplaced) model.UnplacedLine {
	line := model.UnplacedLine{Line: u.Line, Missing: u.Missing, Constraints: []model.UnplacedConstraint{}}
	for _, c := range u.Reason {
		mc := model.UnplacedConstraint{Kind: c.Kind}
		if c.Kind == solve.NoCrew {
			mc.Kind = "noStaff"
		}
		if c.Staff != 0 {
			mc.Staff, _ = rowByID(st.Staff, c.Staff, func(p *engine.Staff) int64 { return p.ID })
		}
		if c.Room != 0 {
			mc.Room, _ = rowByID(st.Rooms, c.Room, func(r *engine.Room) int64 { return r.ID })
		}
		line.Constraints = append(line.Constraints, mc)
	}
	return line
}

// reasonText says why in words, in the locale's language: "Yoga needs 3 a
// week; Coach B's hours and the Studio's capacity and closed times leave
// room for 2". Names are written as they are.
func reasonText(l *locale.Locale, p solve.Problem, li int, u *model.UnplacedLine, placed int) string {
	line := p.Lines[li]
	need := l.Plural("reason.week", line.Sessions, map[string]any{"N": l.Number(line.Sessions)})
	if line.PerRotation {
		need = l.Plural("reason.rotation", line.Sessions, map[string]any{"N": l.Number(line.Sessions)})
	}
	var parts []string
	for _, c := range u.Constraints {
		var who string
		if c.Staff != nil {
			who = c.Staff.Name
		}
		if c.Room != nil {
			who = c.Room.Name
		}
		id := ""
		switch c.Kind {
		case "noStaff":
			id = "reason.noStaff"
		case solve.NoRoom:
			id = "reason.noRoom"
		case solve.DayBounds:
			id = "reason.dayBounds"
		case solve.Hours:
			id = "reason.hours"
		case solve.TimeOff:
			id = "reason.timeOff"
		case solve.StaffBusy, solve.RoomBusy:
			id = "reason.busy"
		case solve.StaffLimit:
			id = "reason.limits"
		case solve.RoomCapacity:
			id = "reason.capacity"
		case "timetable":
			id = "reason.timetable"
		}
		if id != "" {
			parts = append(parts, l.Text(id, map[string]any{"Name": who}))
		}
	}
	why := l.Text("reason.rules", nil)
	switch len(parts) {
	case 0:
	case 1:
		why = parts[0]
	default:
		why = strings.Join(parts[:len(parts)-1], l.Text("list.comma", nil)) + l.Text("reason.and", nil) + parts[len(parts)-1]
	}
	total := line.Sessions
	if !line.PerRotation {
		weeks := len(line.Weeks)
		if weeks == 0 {
			weeks = p.Frame.Cycle
		}
		total *= weeks
		if weeks > 1 {
			need = l.Plural("reason.inWeeks", weeks, map[string]any{"Need": need, "Total": l.Number(total), "Weeks": l.Number(weeks)})
		}
	}
	return l.Plural("reason.text", placed, map[string]any{"Name": line.Name, "Need": need, "Why": why, "N": l.Number(placed)})
}

// applyProposal writes a kept proposal in one guarded write.
func (r *Resolver) applyProposal(ctx context.Context, id int64, dryRun *bool) (*model.ApplyProposalPayload, error) {
	if err := can(ctx, models.EditSchedule); err != nil {
		return nil, err
	}
	business := principal(ctx).BusinessID
	pr := r.Proposals.get(business, id, r.Store.Now())
	if pr == nil {
		return nil, namedBy("id", notFound("proposal", id))
	}
	var w proposalRows
	res, err := r.write(ctx, models.EditSchedule, dryRun, func(e *models.Edit) error {
		w = pr.apply(e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !res.DryRun {
		r.Proposals.drop(business, id)
	}
	out := &model.ApplyProposalPayload{DryRun: res.DryRun, Revision: int(res.Revision), Clashes: res.Clashes, Series: []engine.Series{}}
	for _, tmp := range w.series {
		if tmp == 0 {
			continue
		}
		s, err := r.seriesByID(ctx, res.ID(tmp))
		if err != nil {
			return nil, err
		}
		out.Series = append(out.Series, *s)
	}
	return out, nil
}
