package graph

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"

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
	// searchesAtOnce is how many background searches of one business may
	// be under way (each is counted among its proposalsKept): a search
	// keeps a core busy for up to maxTimeLimit.
	searchesAtOnce = 2
)

// Proposals are the proposals made and not yet applied, kept in memory per
// business for proposalLife. A proposal is a preview: a restart, or
// another server behind the same database, answers NOT_FOUND for it and
// the client proposes again — cheaper than a table of previews, and what
// is applied is proven again by the guarded write whatever was kept.
//
// A proposal asked for in the background is kept while it is searched
// (RUNNING), counted among the business's proposalsKept and never evicted
// before it ends; at most searchesAtOnce of a business search at once.
// Its search runs on a context of the store's, not the request's (which
// ends with its answer): cancelProposal ends one, Close every one.
type Proposals struct {
	mu      sync.Mutex
	byID    map[proposalKey]*proposal
	rng     *rand.Rand
	closing bool // Close was called: no search starts

	ctx      context.Context // the background searches' and their proofs'
	stopAll  context.CancelFunc
	searches sync.WaitGroup

	// For tests: progress hears every background search as it reports,
	// with the context cancelProposal ends (it may block until then);
	// blind hides the timetable from the solver, whose places then clash
	// and are repaired.
	progress func(context.Context, solve.Progress)
	blind    bool
}

type proposalKey struct{ business, id int64 }

// NewProposals makes an empty store.
func NewProposals() *Proposals {
	ctx, stop := context.WithCancel(context.Background())
	return &Proposals{byID: map[proposalKey]*proposal{}, rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 35)), ctx: ctx, stopAll: stop}
}

// Close stops every background search and waits until each has ended
// (a search stops within 64 of its steps; its proof, a dry run, is cut
// short too) or ctx ends. No search starts after it.
func (p *Proposals) Close(ctx context.Context) error {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	p.stopAll()
	ended := make(chan struct{})
	go func() {
		p.searches.Wait()
		close(ended)
	}()
	select {
	case <-ended:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// keep stores pr for business under a new id, evicting the business's
// oldest ended proposal when it has proposalsKept. With background, pr is
// about to be searched: refused when the business has searchesAtOnce
// under way or the store is closing, else counted until finish.
func (p *Proposals) keep(business int64, pr *proposal, now time.Time, background bool) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ended []proposalKey
	running := 0
	for k, v := range p.byID {
		switch {
		case v.running():
			if k.business == business {
				running++
			}
		case now.Sub(v.made) > proposalLife:
			delete(p.byID, k)
		case k.business == business:
			ended = append(ended, k)
		}
	}
	if background {
		if p.closing {
			return 0, errShuttingDownAPI
		}
		if running >= searchesAtOnce {
			return 0, badInput("background", "%d proposals are searching already: wait until one is done, or cancel one", searchesAtOnce)
		}
	}
	if n := len(ended) + running - proposalsKept + 1; n > 0 {
		slices.SortFunc(ended, func(a, b proposalKey) int { return p.byID[a].made.Compare(p.byID[b].made) })
		for _, k := range ended[:min(n, len(ended))] {
			delete(p.byID, k)
		}
	}
	id := p.rng.Int64N(1<<53-1) + 1
	pr.mu.Lock()
	pr.id, pr.made = id, now
	if pr.answer != nil {
		pr.answer.ID = id
	}
	if background {
		pr.status = model.ProposalStatusRunning
		pr.ctx, pr.stop = context.WithCancel(p.ctx)
		p.searches.Add(1)
	}
	pr.mu.Unlock()
	p.byID[proposalKey{business, id}] = pr
	return id, nil
}

func (p *Proposals) get(business, id int64, now time.Time) *proposal {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr := p.byID[proposalKey{business, id}]
	if pr == nil || !pr.running() && now.Sub(pr.made) > proposalLife {
		return nil
	}
	return pr
}

func (p *Proposals) drop(business, id int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.byID, proposalKey{business, id})
}

// proposal is what applyProposal writes: the frame and the placements;
// and where its search is.
type proposal struct {
	made       time.Time
	from       engine.Date
	cycle      int
	keep       model.KeepTimetable
	kept       []int64 // series kept with keep SERIES
	lines      []demandLine
	placements []solve.Placement // read once the search has ended

	mu        sync.Mutex
	id        int64
	status    model.ProposalStatus // "" until it is kept or has ended
	progress  model.ProposalProgress
	answer    *model.Proposal  // once proven
	after     *models.Snapshot // the dry run answer's series are read from
	err       error            // why it FAILED
	cancelled bool
	ctx       context.Context // a background search's: stop ends it
	stop      context.CancelFunc
	done      chan struct{} // closed when it has ended
}

func (pr *proposal) running() bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.status == model.ProposalStatusRunning
}

// report records how far the search has come.
func (pr *proposal) report(g solve.Progress) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.progress = model.ProposalProgress{Spent: int(g.Work), Budget: int(g.Budget), Placed: g.Placed, Unplaced: g.Unplaced, Soft: g.Soft}
}

// finish records how the search ended: its proven answer, or the error.
func (pr *proposal) finish(out *model.Proposal, after *models.Snapshot, err error) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	switch {
	case err != nil:
		pr.status = model.ProposalStatusFailed
	case pr.cancelled:
		pr.status = model.ProposalStatusCancelled
	default:
		pr.status = model.ProposalStatusDone
	}
	pr.answer, pr.err = out, err
	if after != nil {
		// Kept for an hour, up to proposalsKept of them: what its series
		// are read from (the state and its timetable), without the proof
		// and reports the dry run made.
		pr.after = &models.Snapshot{Business: after.Business, State: after.State, Timetable: after.Timetable, Versions: after.Versions, Accepted: after.Accepted}
	}
	if out != nil {
		out.ID = pr.id
		// What is proposed, after the proof's repairs.
		pr.progress.Placed, pr.progress.Unplaced, pr.progress.Soft = out.Placed, out.Score.Unplaced, out.Score.Total
	}
	close(pr.done)
}

// cancel stops a search under way.
func (pr *proposal) cancel() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.status == model.ProposalStatusRunning && pr.stop != nil {
		pr.cancelled = true
		pr.stop()
	}
}

// view is the proposal as it stands: the proven answer once the search
// has ended, else the best so far; the dry run its series are read from;
// and for one that FAILED, why.
func (pr *proposal) view() (*model.Proposal, *models.Snapshot, error) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	progress := pr.progress
	if pr.answer != nil {
		out := *pr.answer
		out.Status, out.Progress = pr.status, &progress
		return &out, pr.after, nil
	}
	return &model.Proposal{ID: pr.id, Placed: progress.Placed, Status: pr.status, Progress: &progress,
		Score:    &model.ProposalScore{Total: progress.Soft, Unplaced: progress.Unplaced, Parts: []model.ScorePart{}},
		Unplaced: []model.UnplacedLine{}, Series: []engine.Series{}}, nil, pr.err
}

// appliable refuses a proposal still searching, or one that failed.
func (pr *proposal) appliable() error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	switch pr.status {
	case model.ProposalStatusRunning:
		return badInput("id", "The proposal is still searching: wait until it is done, or cancel it")
	case model.ProposalStatusFailed:
		return namedBy("id", notFound("proposal", pr.id))
	}
	return nil
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
	pr := &proposal{cycle: 1, keep: model.KeepTimetableEverything, done: make(chan struct{})}
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

// search is one proposal's solve and proof: what they need, apart from
// the request that asked (a background search outlives it).
type search struct {
	business int64
	st       engine.State
	today    engine.Date
	p        solve.Problem
	pr       *proposal
	loc      *locale.Locale // the reasons' words
	limit    time.Duration
	work     int64
	seed     uint64
}

// propose solves the demand and proves the answer with a dry run of the
// guarded write; places the proof refuses are dropped (unplaced, for the
// timetable) and the rest proven again. With background, it answers at
// once and the search goes on apart (proposeInBackground).
func (r *Resolver) propose(ctx context.Context, in model.ProposeTimetableInput) (*model.Proposal, error) {
	if err := can(ctx, models.EditSchedule); err != nil {
		return nil, err
	}
	sn, err := r.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	now := r.Store.Now()
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
	s := &search{business: principal(ctx).BusinessID, st: sn.State, today: sn.Today(now), p: p, pr: pr,
		loc: r.locale(ctx, sn.State.Business), limit: time.Duration(limit) * time.Second, work: int64(limit) * workPerSecond, seed: uint64(seed)}
	if deref(in.Background) {
		return r.proposeInBackground(s, now)
	}
	out, res, err := r.run(ctx, s, func() bool { return ctx.Err() != nil }, nil)
	if err != nil {
		return nil, err
	}
	use(ctx, res.After)
	pr.finish(out, res.After, nil)
	if _, err := r.Proposals.keep(s.business, pr, now, false); err != nil {
		return nil, err
	}
	out, _, _ = pr.view()
	return out, nil
}

// proposeInBackground keeps the proposal as RUNNING and searches it on the
// store's context: the answer is its id, at once.
func (r *Resolver) proposeInBackground(s *search, now time.Time) (*model.Proposal, error) {
	pr := s.pr
	pr.report(solve.Progress{Budget: s.work})
	if _, err := r.Proposals.keep(s.business, pr, now, true); err != nil {
		return nil, err
	}
	go func() {
		defer r.Proposals.searches.Done()
		defer pr.stop()
		var (
			out *model.Proposal
			res *models.Result
			err error
		)
		defer func() {
			if v := recover(); v != nil {
				out, res, err = nil, nil, fmt.Errorf("panic: %v", v)
			}
			if err != nil && r.Log != nil {
				r.Log.Error("a background proposal failed", "business", s.business, "err", err)
			}
			var after *models.Snapshot
			if res != nil {
				after = res.After
			}
			pr.finish(out, after, err)
		}()
		var hook func(solve.Progress)
		if h := r.Proposals.progress; h != nil {
			hook = func(g solve.Progress) { h(pr.ctx, g) }
		}
		out, res, err = r.run(r.Proposals.ctx, s, func() bool { return pr.ctx.Err() != nil }, hook)
	}()
	out, _, _ := pr.view()
	return out, nil
}

// run solves and proves s: the search stops at its budget, its deadline,
// or when stop says so (with the best found by then); ctx is the proof's.
// hook, when set, hears the search's progress after the proposal does.
func (r *Resolver) run(ctx context.Context, s *search, stop func() bool, hook func(solve.Progress)) (*model.Proposal, *models.Result, error) {
	p, pr, st := s.p, s.pr, s.st
	occ, err := occupancy(st, s.today, pr, p)
	if err != nil {
		return nil, nil, err
	}
	if r.Proposals.blind {
		occ = solve.Nothing{}
	}
	deadline := time.Now().Add(s.limit)
	sol, err := solve.Solve(p, occ, solve.Options{Seed: s.seed, Work: s.work,
		Stop: func() bool { return stop() || ctx.Err() != nil || time.Now().After(deadline) },
		Progress: func(g solve.Progress) {
			pr.report(g)
			if hook != nil {
				hook(g)
			}
		}})
	if err != nil {
		return nil, nil, err
	}
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	placements := sol.Placements
	refused := map[int]int{} // line → places the proof refused
	var res *models.Result
	var w proposalRows
	for try := 0; ; try++ {
		pr.placements = placements
		res, err = r.Store.Write(ctx, s.business, true, func(e *models.Edit) error {
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
			return nil, nil, err
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
			return nil, nil, fmt.Errorf("the clash proof still refuses the proposal after %d repairs", repairs)
		}
		var keep []solve.Placement
		for i, pl := range placements {
			if bad[w.classTimes[i]] {
				refused[pl.Line]++
				continue
			}
			keep = append(keep, pl)
		}
		placements = keep
	}
	// The score of what is proposed: the places refused are no longer in it.
	score, err := solve.Rescore(p, placements)
	if err != nil {
		return nil, nil, err
	}
	out := &model.Proposal{Placed: len(placements), Stopped: sol.Stopped, Unplaced: []model.UnplacedLine{}, Series: []engine.Series{}}
	out.Score = &model.ProposalScore{Total: score.Soft, Unplaced: score.Unplaced, Parts: []model.ScorePart{}}
	for _, part := range score.Parts {
		out.Score.Parts = append(out.Score.Parts, model.ScorePart{Name: part.Name, Value: part.Value})
	}
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
		line.Reason = reasonText(s.loc, p, li, line, placedOf(placements, li))
	}
	for li := range p.Lines {
		if u, ok := missing[li]; ok {
			if u.Reason == "" {
				u.Reason = reasonText(s.loc, p, li, u, placedOf(placements, li))
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
	return out, res, nil
}

func placedOf(placements []solve.Placement, line int) int {
	n := 0
	for _, p := range placements {
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
	if err := pr.appliable(); err != nil {
		return nil, err
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

// proposalByID reads a kept proposal: a background search's status and
// progress, or the whole proposal once it has ended, its series read from
// its own dry run (show).
func (r *Resolver) proposalByID(ctx context.Context, id int64) (*model.Proposal, error) {
	pr, err := r.keptProposal(ctx, id)
	if err != nil {
		return nil, err
	}
	return answerProposal(ctx, pr), nil
}

// cancelProposal stops a background search and answers the proposal once
// it is proven (the best found by then).
func (r *Resolver) cancelProposal(ctx context.Context, id int64) (*model.Proposal, error) {
	pr, err := r.keptProposal(ctx, id)
	if err != nil {
		return nil, err
	}
	pr.cancel()
	select {
	case <-pr.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return answerProposal(ctx, pr), nil
}

func (r *Resolver) keptProposal(ctx context.Context, id int64) (*proposal, error) {
	if err := can(ctx, models.EditSchedule); err != nil {
		return nil, err
	}
	noCache(ctx) // a search's status changes with no write
	pr := r.Proposals.get(principal(ctx).BusinessID, id, r.Store.Now())
	if pr == nil {
		return nil, namedBy("id", notFound("proposal", id))
	}
	return pr, nil
}

// answerProposal is pr as it stands; one that FAILED answers its error
// beside it.
func answerProposal(ctx context.Context, pr *proposal) *model.Proposal {
	out, after, err := pr.view()
	if after != nil {
		show(ctx, after)
	}
	if err != nil {
		graphql.AddError(ctx, err)
	}
	return out
}

// A proposal's series exist only in its dry run, which a later request
// (proposal, cancelProposal) reads them from: the root field that answers
// one reads the dry run's snapshot, below it only (showing), where a
// mutation's payload makes the whole request read its write's (use).
type shownKey struct{}

type proposalView struct {
	sn atomic.Pointer[models.Snapshot]
}

// showing gives the root fields that answer a kept proposal their own
// snapshot to read, once they know which (show).
func showing(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	if f := graphql.GetRootFieldContext(ctx); f != nil && (f.Field.Name == "proposal" || f.Field.Name == "cancelProposal") {
		ctx = context.WithValue(ctx, shownKey{}, &proposalView{})
	}
	return next(ctx)
}

// show makes what is below the root field of ctx read sn.
func show(ctx context.Context, sn *models.Snapshot) {
	if s, _ := ctx.Value(shownKey{}).(*proposalView); s != nil {
		s.sn.Store(sn)
	}
}

// shownSnapshot is the snapshot show gave ctx, or nil.
func shownSnapshot(ctx context.Context) *models.Snapshot {
	if s, _ := ctx.Value(shownKey{}).(*proposalView); s != nil {
		return s.sn.Load()
	}
	return nil
}
