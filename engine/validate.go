package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Problem is one thing wrong with a state, in plain words. Table, ID and
// Field point at the value (Field uses the API's names, such as "anchorDate");
// Message says what is wrong in the business's words. Code is NotFound for
// a row that names one the state does not have (a dangling reference),
// Invalid (or empty) for anything else.
type Problem struct {
	Table   string
	ID      int64
	Field   string
	Message string
	Code    Code
	// Format and Args are what Message was written from (see Error).
	Format string
	Args   []any
}

// ValidationError lists every problem found, not just the first.
type ValidationError struct {
	Problems []Problem
}

// Code is NotFound when a problem names a row that does not exist, since
// nothing else can be put right until it does; Invalid otherwise.
func (e *ValidationError) Code() Code {
	return e.First().code()
}

// First is the problem that decides the error's code: the first that
// names a row that does not exist, else the first.
func (e *ValidationError) First() Problem {
	for _, p := range e.Problems {
		if p.Code == NotFound {
			return p
		}
	}
	if len(e.Problems) == 0 {
		return Problem{Code: Invalid}
	}
	return e.Problems[0]
}

func (p Problem) code() Code {
	if p.Code == "" {
		return Invalid
	}
	return p.Code
}

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Message
	}
	return strings.Join(msgs, "; ")
}

// MaxCycle is the longest rotation a series may have, in weeks.
const MaxCycle = 52

// Validate checks a state and returns a *ValidationError listing every
// problem, or nil.
func Validate(s State) error {
	v := validator{s: &s, words: Words(s.Business.Kind)}
	v.checkBusiness()
	v.index()
	v.checkRooms()
	v.checkPeople()
	v.checkClasses()
	v.checkClassTimes()
	v.checkSeries()
	v.checkEntries()
	v.checkSales()
	v.checkOneOffs()
	v.checkChanges()
	v.checkClosures()
	v.checkCapacity()
	v.checkCover()
	v.checkStanding()
	v.checkQualifications()
	if len(v.problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: v.problems}
}

type validator struct {
	s        *State
	words    Vocabulary
	problems []Problem

	rooms      map[int64]*Room
	staff      map[int64]*Staff
	activities map[int64]*Activity
	classes    map[int64]*Class
	classTimes map[int64]*ClassTime
	series     map[int64]*Series
	plans      map[int64]*Plan
	clients    map[int64]*Client

	// staffKey is each staff member's NameKey; keys is checkClass's
	// scratch list.
	staffKey map[int64]string
	keys     []string

	// peak is the most units a room ever has: its plain capacity, or the
	// highest level of its capacity rules when it has any.
	peak map[int64]int
}

func (v *validator) add(table string, id int64, field, format string, args ...any) {
	v.problems = append(v.problems, Problem{Table: table, ID: id, Field: field, Message: fmt.Sprintf(format, args...), Code: Invalid, Format: format, Args: args})
}

// missing reports a row that names one the state does not have: what an
// input that names an unknown id (or another business's) leaves behind.
func (v *validator) missing(table string, id int64, field, format string, args ...any) {
	v.problems = append(v.problems, Problem{Table: table, ID: id, Field: field, Message: fmt.Sprintf(format, args...), Code: NotFound, Format: format, Args: args})
}

// text reports a text field that does not fit its rule (text.go).
func (v *validator) text(table string, id int64, field, what, s string, t Text) {
	if p := t.Problem(what, s); p != "" {
		v.add(table, id, field, "%s", p)
	}
}

// count reports a number outside 0..most.
func (v *validator) count(table string, id int64, field, what string, n, most int) {
	if n < 0 || n > most {
		v.add(table, id, field, "%s must be between 0 and %d, not %d", what, most, n)
	}
}

// distinct reports an id listed twice in one list (a set: one client in a
// one-off, one room in a closure).
func (v *validator) distinct(table string, id int64, field, what string, ids []int64) {
	for i, x := range ids {
		if slices.Contains(ids[:i], x) {
			v.add(table, id, field, "%s lists id %d twice; name each once", what, x)
			return
		}
	}
}

func (v *validator) checkBusiness() {
	b := v.s.Business
	v.text("business", 0, "name", "The business's name", b.Name, NameText)
	v.text("business", 0, "currency", "The currency", b.Currency, CurrencyText)
	if !b.Kind.Valid() {
		v.add("business", 0, "kind", "The kind of business must be gym, clinic or office, not %q", b.Kind)
	}
	if strings.TrimSpace(b.Name) == "" {
		v.add("business", 0, "name", "The business needs a name")
	}
	if strings.TrimSpace(b.Currency) == "" {
		v.add("business", 0, "currency", "The business needs a currency, such as KD or EUR")
	}
	if b.Location == nil {
		v.add("business", 0, "timeZone", "The business needs a time zone, such as Asia/Kuwait")
	}
	if b.WeekStart != time.Sunday && b.WeekStart != time.Monday {
		v.add("business", 0, "weekStart", "The week must start on Sunday or Monday, not %s", b.WeekStart)
	}
	if l := b.Locale; l.FirstDay < 0 || l.FirstDay > 7 {
		v.add("business", 0, "firstDayOfWeek", "The first day of the week must be a day of the week")
	}
	if l := b.Locale; l.Clock != 0 && l.Clock != 12 && l.Clock != 24 {
		v.add("business", 0, "clock", "The clock has 12 or 24 hours, not %d", l.Clock)
	}
	if l := b.Locale; l.Digits != "" && l.Digits != "latn" && l.Digits != "arab" {
		v.add("business", 0, "digits", "Digits are Latin or Arabic-Indic, not %q", l.Digits)
	}
}

// index builds the lookups the reference checks use, reporting missing and
// repeated ids on the way.
func (v *validator) index() {
	v.rooms = indexByID(v, "rooms", v.s.Rooms, func(r *Room) int64 { return r.ID })
	v.staff = indexByID(v, "staff", v.s.Staff, func(r *Staff) int64 { return r.ID })
	v.activities = indexByID(v, "activities", v.s.Activities, func(r *Activity) int64 { return r.ID })
	v.classes = indexByID(v, "classes", v.s.Classes, func(r *Class) int64 { return r.ID })
	v.classTimes = indexByID(v, "classTimes", v.s.ClassTimes, func(r *ClassTime) int64 { return r.ID })
	v.series = indexByID(v, "series", v.s.Series, func(r *Series) int64 { return r.ID })
	v.plans = indexByID(v, "plans", v.s.Plans, func(r *Plan) int64 { return r.ID })
	v.clients = indexByID(v, "clients", v.s.Clients, func(r *Client) int64 { return r.ID })
	indexByID(v, "oneOffs", v.s.OneOffs, func(r *OneOff) int64 { return r.ID })
	indexByID(v, "closures", v.s.Closures, func(r *Closure) int64 { return r.ID })
	indexByID(v, "capacityRules", v.s.Capacity, func(r *CapacityRule) int64 { return r.ID })
	indexByID(v, "roomBookings", v.s.RoomBookings, func(r *RoomBooking) int64 { return r.ID })
	indexByID(v, "subscriptions", v.s.Subscriptions, func(r *Subscription) int64 { return r.ID })
	indexByID(v, "entries", v.s.Entries, func(r *Entry) int64 { return r.ID })
	v.peaks()
}

// peaks fills peak from the rooms and their capacity rules.
func (v *validator) peaks() {
	v.peak = make(map[int64]int, len(v.s.Rooms))
	rules := map[int64][]*CapacityRule{}
	for i := range v.s.Capacity {
		c := &v.s.Capacity[i]
		rules[c.RoomID] = append(rules[c.RoomID], c)
	}
	for i := range v.s.Rooms {
		r := &v.s.Rooms[i]
		v.peak[r.ID] = peakUnits(r, rules[r.ID])
	}
	for id, rs := range rules {
		if _, ok := v.peak[id]; !ok {
			v.peak[id] = peakUnits(&Room{}, rs)
		}
	}
}

// peakUnits is the most units a room ever has: the highest level of its
// capacity rules when it has any, or else its capacity. A session or
// booking may ask for no more.
func peakUnits(r *Room, rules []*CapacityRule) int {
	if len(rules) == 0 {
		return r.Units()
	}
	peak := 0
	for _, c := range rules {
		peak = max(peak, c.Units)
	}
	return peak
}

func indexByID[T any](v *validator, table string, rows []T, id func(*T) int64) map[int64]*T {
	m := make(map[int64]*T, len(rows))
	for i := range rows {
		k := id(&rows[i])
		if k == 0 {
			v.add(table, 0, "id", "Every row of %s needs an id", table)
			continue
		}
		if _, dup := m[k]; dup {
			v.add(table, k, "id", "Two rows of %s share the id %d", table, k)
			continue
		}
		m[k] = &rows[i]
	}
	return m
}

// unique reports names used twice in one list, compared without case.
func (v *validator) unique(table string, id int64, word, name string, seen map[string]bool) {
	k := NameKey(name)
	if k == "" {
		v.add(table, id, "name", "Every %s needs a name", word)
		return
	}
	if seen[k] {
		v.add(table, id, "name", "There is already %s called %q", Word{One: word}.A(), name)
	}
	seen[k] = true
}

func (v *validator) checkRooms() {
	seen := map[string]bool{}
	for _, r := range v.s.Rooms {
		v.unique("rooms", r.ID, "room", r.Name, seen)
		v.text("rooms", r.ID, "name", "The name of a room", r.Name, NameText)
		if r.Capacity < 0 || r.Capacity > MaxUnits {
			v.add("rooms", r.ID, "capacity", "Room %q cannot hold %d units; give 1 to %d", r.Name, r.Capacity, MaxUnits)
		}
	}
}

func (v *validator) checkPeople() {
	// Two staff rows may carry one person's name (the clash rules then treat
	// them as one person), but every row needs a name.
	for _, p := range v.s.Staff {
		v.checkStaff(p)
	}
	seen := map[string]bool{}
	for _, a := range v.s.Activities {
		v.unique("activities", a.ID, v.words.Activity.One, a.Name, seen)
		v.checkActivity(a)
	}
	for _, c := range v.s.Clients {
		if strings.TrimSpace(c.Name) == "" {
			v.add("clients", c.ID, "name", "Every %s needs a name", v.words.Client.One)
		}
		v.text("clients", c.ID, "name", "The name of "+v.words.Client.A(), c.Name, NameText)
		v.text("clients", c.ID, "email", "The email of "+v.words.Client.A(), c.Email, EmailText)
		v.text("clients", c.ID, "phone", "The phone number of "+v.words.Client.A(), c.Phone, PhoneText)
	}
}

func (v *validator) checkStaff(p Staff) {
	if NameKey(p.Name) == "" {
		v.add("staff", p.ID, "name", "Every %s needs a name", v.words.Staff.One)
	}
	v.text("staff", p.ID, "name", "The name of "+v.words.Staff.A(), p.Name, NameText)
}

func (v *validator) checkActivity(a Activity) {
	v.text("activities", a.ID, "name", "The name of "+v.words.Activity.A(), a.Name, NameText)
	v.text("activities", a.ID, "color", "The colour of "+v.words.Activity.A(), a.Color, ColorText)
}

func (v *validator) checkClasses() {
	// Each name's key once, not once per class that names it.
	v.staffKey = make(map[int64]string, len(v.s.Staff))
	for _, p := range v.s.Staff {
		v.staffKey[p.ID] = NameKey(p.Name)
	}
	seen := make(map[string]int64, len(v.s.Classes))
	for _, c := range v.s.Classes {
		k, ok := v.checkClass(&c)
		if !ok {
			continue
		}
		if other, dup := seen[k]; dup {
			v.dupClass(&c, other)
			continue
		}
		seen[k] = c.ID
	}
}

// checkClass checks one class but for another having its activity and
// staff, and returns its key (ClassKey) when it has one.
func (v *validator) checkClass(c *Class) (string, bool) {
	a, ok := v.activities[c.ActivityID]
	if !ok {
		// A class made in the same write has a temporary id: not one to show.
		v.missing("classes", c.ID, "activityId", "%s names %s that does not exist", capitalize(v.words.Class.A()), v.words.Activity.A())
	}
	if len(c.StaffIDs) == 0 {
		v.add("classes", c.ID, "staffIds", "%s needs at least one %s", v.className(c), v.words.Staff.One)
	}
	keys := v.keys[:0]
	for _, id := range c.StaffIDs {
		p, ok := v.staff[id]
		if !ok {
			v.missing("classes", c.ID, "staffIds", "%s names a %s that does not exist", v.className(c), v.words.Staff.One)
			continue
		}
		if slices.Contains(keys, v.staffKey[id]) {
			v.add("classes", c.ID, "staffIds", "%s lists %s twice", v.className(c), p.Name)
		}
		keys = append(keys, v.staffKey[id])
	}
	v.keys = keys
	if !ok || len(keys) == 0 {
		return "", false
	}
	// ClassKey, from the keys at hand.
	slices.Sort(keys)
	return NameKey(a.Name) + "\x00" + strings.Join(keys, "\x00"), true
}

func (v *validator) dupClass(c *Class, other int64) {
	v.add("classes", c.ID, "staffIds", "%s already exists (%s %d): no two %s share %s and the same %s",
		v.className(c), v.words.Class.One, other, v.words.Class.Many, v.words.Activity.A(), v.words.Staff.Many)
}

// className describes a class as people know it: "Boxing with Marco Reyes".
func (v *validator) className(c *Class) string {
	name := v.words.Class.Title()
	if a, ok := v.activities[c.ActivityID]; ok {
		name = a.Name
	}
	var staff []string
	for _, id := range c.StaffIDs {
		if p, ok := v.staff[id]; ok {
			staff = append(staff, p.Name)
		}
	}
	return ClassName(name, staff)
}

// ClassName names a class as people do: "Board meeting with Laura Becker &
// Ahmed Rahim".
func ClassName(activity string, staff []string) string {
	if len(staff) == 0 {
		return activity
	}
	return activity + " with " + joinAnd(staff)
}

func (v *validator) checkClassTimes() {
	for _, ct := range v.s.ClassTimes {
		v.checkClassTime(ct)
	}
}

func (v *validator) checkClassTime(ct ClassTime) {
	r, ok := v.rooms[ct.RoomID]
	if !ok {
		v.missing("classTimes", ct.ID, "roomId", "A class time names a room that does not exist")
	}
	if ct.Weekday < time.Sunday || ct.Weekday > time.Saturday {
		v.add("classTimes", ct.ID, "weekday", "A class time needs a day of the week")
	}
	v.span("classTimes", ct.ID, ct.Start, ct.End)
	v.text("classTimes", ct.ID, "label", "The label of a class time", ct.Label, LabelText)
	v.text("classTimes", ct.ID, "type", "The type of a class time", ct.Type, LabelText)
	v.count("classTimes", ct.ID, "capacity", "The number of places", ct.Capacity, MaxPlaces)
	if ct.Buffer < 0 || ct.Buffer > 24*60 {
		v.add("classTimes", ct.ID, "bufferMinutes", "The cleaning time must be between 0 and 1440 minutes, not %d", ct.Buffer)
	}
	v.units("classTimes", ct.ID, ct.Units, r, ok)
}

func (v *validator) span(table string, id int64, start, end LocalTime) {
	if !start.Valid() || start == EndOfDay {
		v.add(table, id, "start", "The start time %s is not a time of day", start)
	}
	if !end.Valid() {
		v.add(table, id, "end", "The end time %s is not a time of day", end)
	}
	if end <= start {
		v.add(table, id, "end", "The end time %s must be after the start time %s", end, start)
	}
}

// units checks the units a session or a room booking takes against the
// most its room ever has; whether they are free at the time is the clash
// proof's question.
func (v *validator) units(table string, id int64, units int, r *Room, roomOK bool) {
	what := "a session"
	if table == "roomBookings" {
		what = "a booking"
	}
	switch {
	case units < 0:
		v.add(table, id, "units", "The units used cannot be negative")
	case units > MaxUnits:
		v.add(table, id, "units", "%s cannot use more than %d units, not %d", capitalize(what), MaxUnits, units)
	case roomOK && units > v.peak[r.ID]:
		v.add(table, id, "units", "Room %q has at most %s; %s cannot use %d", r.Name, Word{"unit", "units"}.N(v.peak[r.ID]), what, units)
	}
}

func (v *validator) checkSeries() {
	ws := v.s.Business.WeekStart
	for _, sr := range v.s.Series {
		what := fmt.Sprintf("%s %q", v.words.Series.Title(), sr.Name)
		if strings.TrimSpace(sr.Name) == "" {
			v.add("series", sr.ID, "name", "Every %s needs a name", v.words.Series.One)
		}
		v.text("series", sr.ID, "name", "The name of "+v.words.Series.A(), sr.Name, NameText)
		if sr.Cycle < 1 || sr.Cycle > MaxCycle {
			v.add("series", sr.ID, "cycleWeeks", "%s: the rotation must be 1 to %d weeks long, not %d", what, MaxCycle, sr.Cycle)
		}
		if !sr.Anchor.Valid() {
			v.add("series", sr.ID, "anchorDate", "%s needs a start date", what)
		} else if sr.Anchor.Weekday() != ws {
			v.add("series", sr.ID, "anchorDate", "%s: the start date %s is a %s; %s start on a %s, the first day of the week",
				what, sr.Anchor, sr.Anchor.Weekday(), v.words.Series.Many, ws)
		}
		if sr.End == 0 {
			continue
		}
		if !sr.End.Valid() {
			v.add("series", sr.ID, "endDate", "%s: the end date is not a real date", what)
		} else if sr.End.Weekday() != ws {
			v.add("series", sr.ID, "endDate", "%s: the end date %s is a %s; %s end on a %s, the first day of the week",
				what, sr.End, sr.End.Weekday(), v.words.Series.Many, ws)
		}
		if sr.Anchor.Valid() && sr.End <= sr.Anchor {
			v.add("series", sr.ID, "endDate", "%s: the end date %s must be after the start date %s", what, sr.End, sr.Anchor)
		}
	}
}

func (v *validator) checkEntries() {
	type slot struct {
		series, classTime int64
		week              int
	}
	seen := make(map[slot]bool, len(v.s.Entries))
	for _, e := range v.s.Entries {
		sr, ok := v.checkEntry(e)
		if !ok {
			continue
		}
		k := slot{e.SeriesID, e.ClassTimeID, e.Week}
		if seen[k] {
			v.add("entries", e.ID, "classTimeId", "%s %q already has %s in that class time in week %d", v.words.Series.Title(), sr.Name, v.words.Class.A(), e.Week)
		}
		seen[k] = true
	}
}

// checkEntry checks one entry but for its slot being taken twice, and
// returns its series when it exists.
func (v *validator) checkEntry(e Entry) (*Series, bool) {
	sr, ok := v.series[e.SeriesID]
	if !ok {
		v.missing("entries", e.ID, "seriesId", "An entry names %s that does not exist", v.words.Series.A())
	}
	if _, ok := v.classTimes[e.ClassTimeID]; !ok {
		v.missing("entries", e.ID, "classTimeId", "An entry names a class time that does not exist")
	}
	if _, ok := v.classes[e.ClassID]; !ok {
		v.missing("entries", e.ID, "classId", "An entry names %s that does not exist", v.words.Class.A())
	}
	if !ok {
		return nil, false
	}
	if e.Week < 1 || (sr.Cycle >= 1 && e.Week > sr.Cycle) {
		v.add("entries", e.ID, "week", "%s %q: week %d is outside its %s rotation", v.words.Series.Title(), sr.Name, e.Week, Word{"week", "weeks"}.N(sr.Cycle))
	}
	return sr, true
}

func (v *validator) checkSales() {
	for _, p := range v.s.Plans {
		if _, ok := v.series[p.SeriesID]; !ok {
			v.missing("plans", p.ID, "seriesId", "A plan names %s that does not exist", v.words.Series.A())
		}
		v.text("plans", p.ID, "name", "The name of a plan", p.Name, NameText)
		if p.PerMonth < 0 {
			v.add("plans", p.ID, "sessionsPerMonth", "A plan cannot have a negative number of %s a month", v.words.Class.Many)
		} else if p.PerMonth > MaxPerMonth {
			v.add("plans", p.ID, "sessionsPerMonth", "A plan has at most %d %s a month, not %d", MaxPerMonth, v.words.Class.Many, p.PerMonth)
		}
		if p.Months < 1 || p.Months > MaxMonths {
			v.add("plans", p.ID, "months", "A plan runs for 1 to %d months, not %d", MaxMonths, p.Months)
		}
		if p.Price < 0 {
			v.add("plans", p.ID, "price", "A price cannot be negative")
		}
	}
	for _, sub := range v.s.Subscriptions {
		if _, ok := v.clients[sub.ClientID]; !ok {
			v.missing("subscriptions", sub.ID, "clientId", "A subscription names %s that does not exist", v.words.Client.A())
		}
		if _, ok := v.series[sub.SeriesID]; !ok {
			v.missing("subscriptions", sub.ID, "seriesId", "A subscription names %s that does not exist", v.words.Series.A())
		}
		if sub.PlanID != 0 {
			if p, ok := v.plans[sub.PlanID]; !ok {
				v.missing("subscriptions", sub.ID, "planId", "A subscription names a plan that does not exist")
			} else if p.SeriesID != sub.SeriesID {
				v.add("subscriptions", sub.ID, "planId", "A subscription's plan must be a plan of its own %s", v.words.Series.One)
			}
		}
		if !sub.Start.Valid() {
			v.add("subscriptions", sub.ID, "startDate", "A subscription needs a start date")
		}
		if sub.End != 0 && sub.End < sub.Start {
			v.add("subscriptions", sub.ID, "endDate", "A subscription cannot end (%s) before it starts (%s)", sub.End, sub.Start)
		}
	}
}

func (v *validator) checkOneOffs() {
	for _, o := range v.s.OneOffs {
		v.checkOneOff(o)
	}
}

func (v *validator) checkOneOff(o OneOff) {
	if _, ok := v.classes[o.ClassID]; !ok {
		v.missing("oneOffs", o.ID, "classId", "A one-off names %s that does not exist", v.words.Class.A())
	}
	r, ok := v.rooms[o.RoomID]
	if !ok {
		v.missing("oneOffs", o.ID, "roomId", "A one-off names a room that does not exist")
	}
	if !o.Date.Valid() {
		v.add("oneOffs", o.ID, "date", "A one-off needs a date")
	}
	v.span("oneOffs", o.ID, o.Start, o.End)
	v.units("oneOffs", o.ID, o.Units, r, ok)
	if o.Buffer < 0 || o.Buffer > 24*60 {
		v.add("oneOffs", o.ID, "bufferMinutes", "The cleaning time must be between 0 and 1440 minutes, not %d", o.Buffer)
	}
	v.count("oneOffs", o.ID, "capacity", "The number of places", o.Capacity, MaxPlaces)
	v.text("oneOffs", o.ID, "label", "The label of a one-off", o.Label, LabelText)
	v.text("oneOffs", o.ID, "note", "The note of a one-off", o.Note, NoteText)
	v.distinct("oneOffs", o.ID, "clientIds", "A one-off", o.ClientIDs)
	for _, c := range o.ClientIDs {
		if _, ok := v.clients[c]; !ok {
			v.missing("oneOffs", o.ID, "clientIds", "A one-off names %s that does not exist", v.words.Client.A())
		}
	}
}

func (v *validator) checkChanges() {
	seen := map[SessionRef]bool{}
	for _, c := range v.s.Changes {
		ct, ok := v.checkChangeRef(c)
		if seen[c.Ref] {
			v.add("changes", 0, "date", "The session on %s has two changes; it can only have one", c.Ref.Date)
		}
		seen[c.Ref] = true
		v.checkChangeRest(c, ct, ok)
	}
}

// checkChangeRef checks the session a day change names and returns its
// class time, when that exists.
func (v *validator) checkChangeRef(c DayChange) (*ClassTime, bool) {
	ct, ok := v.classTimes[c.Ref.ClassTimeID]
	if !ok {
		v.missing("changes", 0, "classTimeId", "A change names a class time that does not exist")
	}
	if _, ok := v.classes[c.Ref.ClassID]; !ok {
		v.missing("changes", 0, "classId", "A change names %s that does not exist", v.words.Class.A())
	}
	if !c.Ref.Date.Valid() {
		v.add("changes", 0, "date", "A change needs the date the session normally falls on")
	}
	return ct, ok
}

// checkChangeRest is the rest of checking a day change, past its session
// (ct and ok: its class time, when that exists).
func (v *validator) checkChangeRest(c DayChange, ct *ClassTime, ok bool) {
	if c.Date != 0 && !c.Date.Valid() {
		v.add("changes", 0, "date", "A session cannot move to a date that does not exist")
	}
	if c.RoomID != 0 {
		if _, ok := v.rooms[c.RoomID]; !ok {
			v.missing("changes", 0, "roomId", "A change moves a session to a room that does not exist")
		}
	}
	if c.ClassID != 0 {
		if _, ok := v.classes[c.ClassID]; !ok {
			v.missing("changes", 0, "classId", "A change names %s that does not exist", v.words.Class.A())
		}
	}
	if c.StaffIDs != nil && len(c.StaffIDs) == 0 {
		v.add("changes", 0, "staffIds", "A session needs at least one %s", v.words.Staff.One)
	}
	for _, id := range c.StaffIDs {
		if _, ok := v.staff[id]; !ok {
			v.missing("changes", 0, "staffIds", "A change names a %s that does not exist", v.words.Staff.One)
		}
	}
	v.text("changes", 0, "note", "The note of a change", c.Note, NoteText)
	if ok && (c.Start != nil || c.End != nil) {
		start, end := ct.Start, ct.End
		if c.Start != nil {
			start = *c.Start
		}
		if c.End != nil {
			end = *c.End
		}
		v.span("changes", 0, start, end)
	}
}

func (v *validator) checkClosures() {
	for _, c := range v.s.Closures {
		if !c.From.Valid() || !c.To.Valid() {
			v.add("closures", c.ID, "from", "A closure needs a first and a last date")
		} else if c.To < c.From {
			v.add("closures", c.ID, "to", "A closure cannot end (%s) before it starts (%s)", c.To, c.From)
		}
		for _, r := range c.RoomIDs {
			if _, ok := v.rooms[r]; !ok {
				v.missing("closures", c.ID, "roomIds", "A closure names a room that does not exist")
			}
		}
		v.distinct("closures", c.ID, "roomIds", "A closure", c.RoomIDs)
		v.text("closures", c.ID, "reason", "The reason of a closure", c.Reason, NoteText)
	}
}

func (v *validator) checkCapacity() {
	byRoom := map[int64][]*CapacityRule{}
	for i := range v.s.Capacity {
		c := &v.s.Capacity[i]
		r, ok := v.rooms[c.RoomID]
		if !ok {
			v.missing("capacityRules", c.ID, "roomId", "A capacity rule names a room that does not exist")
			continue
		}
		v.span("capacityRules", c.ID, c.Start, c.End)
		if c.Units < 0 || c.Units > MaxUnits {
			v.add("capacityRules", c.ID, "units", "Room %q cannot have %d units; give 0 to %d", r.Name, c.Units, MaxUnits)
		}
		for i, d := range c.Weekdays {
			if d < time.Sunday || d > time.Saturday {
				v.add("capacityRules", c.ID, "weekdays", "Room %q: a rule names a day of the week that does not exist", r.Name)
			} else if slices.Contains(c.Weekdays[:i], d) {
				v.add("capacityRules", c.ID, "weekdays", "Room %q: a rule lists %s twice", r.Name, d)
			}
		}
		switch {
		case c.Override() && (!c.From.Valid() || !c.To.Valid() || c.To < c.From):
			v.add("capacityRules", c.ID, "to", "Room %q: an override needs a first and a last date, in order", r.Name)
		case c.Override() && len(c.Weekdays) > 0:
			v.add("capacityRules", c.ID, "weekdays", "Room %q: a rule holds on weekdays or on a date range, not both", r.Name)
		case !c.Override() && len(c.Weekdays) == 0:
			v.add("capacityRules", c.ID, "weekdays", "Room %q: a weekly rule needs at least one day of the week", r.Name)
		}
		for _, other := range byRoom[c.RoomID] {
			if overlaps(c, other) {
				v.add("capacityRules", c.ID, "start", "Room %q already has %s for %s: capacity rules may not overlap",
					r.Name, Word{"unit", "units"}.N(other.Units), Span(other.Start, other.End))
				break
			}
		}
		byRoom[c.RoomID] = append(byRoom[c.RoomID], c)
	}
	for _, b := range v.s.RoomBookings {
		v.checkRoomBooking(b)
	}
}

func (v *validator) checkRoomBooking(b RoomBooking) {
	r, ok := v.rooms[b.RoomID]
	if !ok {
		v.missing("roomBookings", b.ID, "roomId", "A booking names a room that does not exist")
	}
	if !b.Date.Valid() {
		v.add("roomBookings", b.ID, "date", "A booking needs a date")
	}
	v.span("roomBookings", b.ID, b.Start, b.End)
	v.units("roomBookings", b.ID, b.Units, r, ok)
	v.text("roomBookings", b.ID, "note", "The note of a booking", b.Note, NoteText)
}

// checkStanding checks the standing places and their skipped dates: each
// names a class time and class that exist, once, and a date range in
// order; a skip names a standing place, once a date, on a date it covers.
// The client is checked where clients are (they are stored apart).
func (v *validator) checkStanding() {
	if len(v.s.Standing) == 0 && len(v.s.StandingSkips) == 0 {
		return
	}
	rules := indexByID(v, "standingBookings", v.s.Standing, func(r *Standing) int64 { return r.ID })
	for i := range v.s.Standing {
		r := &v.s.Standing[i]
		if _, ok := v.classTimes[r.ClassTimeID]; !ok {
			v.missing("standingBookings", r.ID, "sessionId", "A standing booking names a class time that does not exist")
		}
		if _, ok := v.classes[r.ClassID]; !ok {
			v.missing("standingBookings", r.ID, "sessionId", "A standing booking names a %s that does not exist", v.words.Class.One)
		}
		switch {
		case !r.From.Valid():
			v.add("standingBookings", r.ID, "from", "A standing booking needs a first date")
		case r.Until != 0 && (!r.Until.Valid() || r.Until < r.From):
			v.add("standingBookings", r.ID, "until", "A standing booking cannot end (%s) before it starts (%s)", r.Until, r.From)
		}
	}
	indexByID(v, "standingSkips", v.s.StandingSkips, func(r *StandingSkip) int64 { return r.ID })
	seen := make(map[[2]int64]bool, len(v.s.StandingSkips))
	for _, k := range v.s.StandingSkips {
		r, ok := rules[k.StandingID]
		switch {
		case !ok:
			v.missing("standingSkips", k.ID, "id", "A skipped date names a standing booking that does not exist")
		case !r.Covers(k.Date):
			v.add("standingSkips", k.ID, "date", "The standing booking does not cover %s", k.Date)
		case seen[[2]int64{k.StandingID, int64(k.Date)}]:
			v.add("standingSkips", k.ID, "date", "%s is skipped already", k.Date)
		}
		seen[[2]int64{k.StandingID, int64(k.Date)}] = true
	}
}

// overlaps reports whether two rules of a room declare the same time: both
// weekly on a shared weekday, or both overrides on a shared date, with
// overlapping spans.
func overlaps(a, b *CapacityRule) bool {
	if a.Start >= b.End || b.Start >= a.End || a.Override() != b.Override() {
		return false
	}
	if a.Override() {
		return a.From <= b.To && b.From <= a.To
	}
	for _, d := range a.Weekdays {
		if slices.Contains(b.Weekdays, d) {
			return true
		}
	}
	return false
}

// joinAnd joins names as people list them: "A", "A & B", "A, B & C".
func joinAnd(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " & " + names[len(names)-1]
}
