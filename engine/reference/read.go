package reference

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	// Exports name their IANA zone; embedding the database lets them load on
	// machines without one.
	_ "time/tzdata"

	"github.com/koredyne/schedule/engine"
)

// Format and Version are what an export names itself; Read refuses others.
const (
	Format  = "recurring-scheduler-export"
	Version = 1
)

// Import is an export converted to our model.
type Import struct {
	// State holds everything, clients, subscriptions and one-off attendees
	// included; ids are the reference's (positive, so models.Edit.
	// ReplaceSchedule can renumber them).
	State engine.State
	// Packages maps each series to the package it came from. They are the
	// same id except for the one-week series that carry a package's first or
	// last week when it starts or ends mid-week (see the Notes).
	Packages map[int64]int64
	// Notes reports what was not carried over as it stood: unknown tables,
	// fields and settings, and values converted to an exact equivalent.
	Notes []Note
	// Counts is the number of rows read per table.
	Counts map[string]int
	// ExportedAt is the export's exportedAt, as written.
	ExportedAt string
}

// Options says what the export does not: the reference runs on its server's
// clock and always starts its weeks on Sunday, so the time zone is the
// importer's choice, and the week start is the business's (a new business
// takes Sunday, as the reference has it).
type Options struct {
	// Location is the business's IANA time zone; required.
	Location *time.Location
	// WeekStart is the first day of the business's weeks: Sunday or Monday.
	WeekStart time.Weekday
	// Name is the business's name when the export's settings have none.
	Name string
}

// notJSON says where the JSON of an export breaks: a file cut short (the
// commonest way, a copy or a download that stopped) ends early, anything
// else is wrong at a line and column.
func notJSON(data []byte, err error) error {
	var syntax *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("the export is not valid JSON: it ends early, at %s, inside an unfinished value: the file may have been cut short", position(data, int64(len(data))))
	case errors.As(err, &syntax):
		// Offset counts the bytes read, the wrong one last.
		return fmt.Errorf("the export is not valid JSON at %s: %w", position(data, syntax.Offset-1), err)
	}
	return fmt.Errorf("the export is not valid JSON: %w", err)
}

// position writes a byte offset of data (from 0) as people find it in an
// editor: "line 12, column 5 (byte offset 230)", lines and columns from 1,
// columns in characters.
func position(data []byte, offset int64) string {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf("line %d, column %d (byte offset %d)", line, col, offset)
}

// tables lists the known tables in the order they are read: each only names
// rows of tables before it.
var tables = []string{
	"settings", "areas", "coaches", "activities", "classes", "class_coaches", "slots",
	"packages", "package_entries", "package_plans", "members", "package_members",
	"one_offs", "one_off_members", "session_changes",
}

// Read reads a reference export and converts it. It returns an *Error
// listing every problem when the export cannot be converted faithfully; it
// never checks for clashes, so data the reference system let through still
// imports.
func Read(r io.Reader, opts Options) (*Import, error) {
	switch {
	case opts.Location == nil:
		return nil, errors.New("the reference export names no time zone: give the business's (such as Europe/Berlin)")
	case opts.Location == time.Local:
		return nil, errors.New("the time zone must be an IANA zone (such as Europe/Berlin), not the machine's")
	case opts.WeekStart != time.Sunday && opts.WeekStart != time.Monday:
		return nil, fmt.Errorf("weeks start on Sunday or Monday, not %s", opts.WeekStart)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading the export: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var top map[string]json.RawMessage
	if err := dec.Decode(&top); err != nil || top == nil {
		var typeErr *json.UnmarshalTypeError
		if err == nil || errors.As(err, &typeErr) {
			return nil, errors.New("the export must be one JSON object ({...}), not a list or a single value")
		}
		return nil, notJSON(data, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("the export has more after its JSON object, from %s", position(data, dec.InputOffset()))
	}
	d := &decoder{unknown: map[[2]string]int{}}
	top1 := &row{f: top, read: map[string]bool{}}
	switch f := d.text(top1, "format", true); {
	case f == "":
	case f != Format:
		d.fail(nil, "format", "is %q; this reads %q exports only", f, Format)
	}
	if v, ok := d.integer(top1, "version", true); ok && v != Version {
		d.fail(nil, "version", "is %d; this reads version %d only", v, Version)
	}
	imp := &Import{ExportedAt: d.text(top1, "exportedAt", false), Counts: map[string]int{}}
	var raw map[string]json.RawMessage
	if v := top1.value("tables"); v == nil {
		d.missing(nil, "tables")
	} else if err := json.Unmarshal(v, &raw); err != nil {
		d.fail(nil, "tables", "must be an object with one list of rows per table")
	}
	for _, k := range sortedKeys(top) {
		if !top1.read[k] {
			d.note("", k, "unknown top-level field; not imported")
		}
	}
	for _, k := range sortedKeys(raw) {
		if !slices.Contains(tables, k) {
			d.note(k, "", "unknown table; not imported")
		}
	}
	if len(d.problems) > 0 {
		return nil, &Error{Problems: d.problems}
	}

	c := newConverter(d, opts)
	for _, name := range tables {
		imp.Counts[name] = c.table(name, raw[name])
	}
	d.unknownNotes()
	c.sortRooms()
	if len(d.problems) == 0 {
		c.finish()
	}
	if len(d.problems) > 0 {
		return nil, &Error{Problems: d.problems}
	}
	if err := engine.Validate(c.st); err != nil {
		return nil, fmt.Errorf("the export converts to data our engine refuses: %w", err)
	}
	c.checkChanges()
	imp.State, imp.Packages, imp.Notes = c.st, c.packageOf, d.notes
	return imp, nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// table reads the rows of one table and returns how many there were.
func (c *converter) table(name string, raw json.RawMessage) int {
	before := len(c.d.problems)
	defer func() { c.broken[name] = len(c.d.problems) > before }()
	rows := c.d.rows(name, raw)
	read := map[string]func(*row){
		"areas": c.area, "coaches": c.coach, "activities": c.activity, "classes": c.class,
		"class_coaches": c.classCoach, "slots": c.slot, "packages": c.pkg, "package_entries": c.entry,
		"package_plans": c.plan, "members": c.member, "package_members": c.subscription,
		"one_offs": c.oneOff, "one_off_members": c.attendee, "session_changes": c.change,
	}[name]
	if name == "settings" {
		c.settings(rows)
		return len(rows)
	}
	seen := map[int64]bool{}
	c.present[name] = seen
	for _, r := range rows {
		read(r)
		if r.id != 0 {
			if seen[r.id] {
				c.d.fail(r, "id", "is used by two rows of %s", name)
			}
			seen[r.id] = true
		}
		c.d.done(r)
	}
	return len(rows)
}

// words names a row of each table in messages.
var words = map[string]string{
	"areas": "area", "coaches": "coach", "activities": "activity", "classes": "class", "slots": "slot",
	"packages": "package", "package_plans": "plan", "members": "member", "one_offs": "one-off",
}

// exists reports whether id names a usable row of table (ok says whether it
// was converted). A reference to a row that is not there is a problem; one
// to a row that is there but has problems of its own, or into a table that
// could not be read, is not reported again.
func (c *converter) exists(r *row, field, table string, id int64, ok bool) bool {
	if ok || id == 0 {
		return ok && id != 0
	}
	if !c.present[table][id] && !c.broken[table] {
		c.d.fail(r, field, "names %s %d, which is not in %s", words[table], id, table)
	}
	return false
}

// Setting keys: the reference keeps these three, with these defaults.
const (
	keyKind     = "kind"
	keyName     = "name"
	keyCurrency = "currency"

	defaultCurrency = "KD"
)

func (c *converter) settings(rows []*row) {
	d := c.d
	vals := map[string]string{}
	known := []string{keyKind, keyName, keyCurrency}
	for _, r := range rows {
		key := d.text(r, "key", true)
		val := d.text(r, "value", false)
		d.done(r)
		switch {
		case key == "":
		case !slices.Contains(known, key):
			d.note("settings", key, "unknown setting; not imported")
		default:
			if _, dup := vals[key]; dup {
				d.problems = append(d.problems, Problem{Table: "settings", Field: key, Message: "is set twice"})
			}
			vals[key] = strings.TrimSpace(val)
		}
	}
	b := &c.st.Business
	b.Location, b.WeekStart = c.opts.Location, c.opts.WeekStart
	if b.Name = vals[keyName]; b.Name == "" {
		b.Name = c.opts.Name
		d.note("settings", keyName, "the business has no name; it is called %q here", b.Name)
	}
	if b.Currency = vals[keyCurrency]; b.Currency == "" {
		b.Currency = defaultCurrency
		d.note("settings", keyCurrency, "no currency is set; prices are in %s, as the reference system assumes", defaultCurrency)
	}
	switch k := engine.Kind(vals[keyKind]); {
	case k == "":
		b.Kind = engine.Gym
	case k.Valid():
		b.Kind = k
	default:
		b.Kind = engine.Gym
		d.note("settings", keyKind, "%q is not a kind of business; it is a gym here, as the reference system shows it", string(k))
	}
	c.ws = b.WeekStart
}

func (c *converter) area(r *row) {
	d := c.d
	a := engine.Room{ID: d.id(r), Name: d.text(r, "name", true)}
	order, _ := d.integer(r, "sort", false)
	if c.named(r, "area", c.areaNames, &a.Name) {
		c.areas[a.ID] = len(c.st.Rooms)
		c.st.Rooms = append(c.st.Rooms, a)
		c.areaSort = append(c.areaSort, order)
	}
}

// sortRooms puts the rooms in the reference's display order (by sort, then
// id), which a write that numbers rows anew keeps as the order of their ids.
func (c *converter) sortRooms() {
	order := make([]int, len(c.st.Rooms))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if c.areaSort[a] != c.areaSort[b] {
			return c.areaSort[a] < c.areaSort[b]
		}
		return c.st.Rooms[a].ID < c.st.Rooms[b].ID
	})
	rooms := make([]engine.Room, len(order))
	for i, k := range order {
		rooms[i] = c.st.Rooms[k]
		c.areas[rooms[i].ID] = i
	}
	c.st.Rooms = rooms
}

// named checks that a name is not taken (compared without case, as our
// rooms and activities are) and records it. The reference keeps areas of one
// name, and activities whose names differ only in case; the second of two
// becomes "Name (area 5)", with a Note.
func (c *converter) named(r *row, what string, names map[string]int64, name *string) bool {
	if r.id == 0 || strings.TrimSpace(*name) == "" {
		return false
	}
	k := engine.NameKey(*name)
	if other, dup := names[k]; dup {
		renamed := fmt.Sprintf("%s (%s %d)", *name, what, r.id)
		c.d.note(r.table, "name", "%s %d is called %q, as %s %d is; our %ss need distinct names, so it is called %q here",
			what, r.id, *name, what, other, what, renamed)
		*name, k = renamed, engine.NameKey(renamed)
	}
	names[k] = r.id
	return true
}

func (c *converter) coach(r *row) {
	d := c.d
	s := engine.Staff{ID: d.id(r), Name: d.text(r, "name", true)}
	if s.ID != 0 && strings.TrimSpace(s.Name) != "" {
		c.coaches[s.ID] = len(c.st.Staff)
		c.st.Staff = append(c.st.Staff, s)
	}
}

func (c *converter) activity(r *row) {
	d := c.d
	a := engine.Activity{ID: d.id(r), Name: d.text(r, "name", true), Color: d.text(r, "color", false)}
	if c.named(r, "activity", c.activityNames, &a.Name) {
		c.activities[a.ID] = len(c.st.Activities)
		c.st.Activities = append(c.st.Activities, a)
	}
}

func (c *converter) class(r *row) {
	d := c.d
	id := d.id(r)
	act := d.ref(r, "activity_id", true)
	coach := d.ref(r, "coach_id", true)
	actOK := c.exists(r, "activity_id", "activities", act, has(c.activities, act))
	coachOK := c.exists(r, "coach_id", "coaches", coach, has(c.coaches, coach))
	if actOK && coachOK && id != 0 {
		c.classes[id] = &classRow{id: id, activity: act, coaches: []link{{coach: coach, main: true, name: c.coachName(coach)}}}
		c.classOrder = append(c.classOrder, id)
	}
}

// classCoach reads one of the other coaches of a class.
func (c *converter) classCoach(r *row) {
	d := c.d
	class := d.ref(r, "class_id", true)
	coach := d.ref(r, "coach_id", true)
	order, _ := d.integer(r, "sort", false)
	cl := c.classes[class]
	classOK := c.exists(r, "class_id", "classes", class, cl != nil)
	coachOK := c.exists(r, "coach_id", "coaches", coach, has(c.coaches, coach))
	if !classOK || !coachOK {
		return
	}
	for _, l := range cl.coaches {
		if l.coach == coach {
			d.note("class_coaches", "", "class %d lists coach %d (%s) twice; imported once", class, coach, c.coachName(coach))
			return
		}
	}
	cl.coaches = append(cl.coaches, link{coach: coach, order: order, name: c.coachName(coach)})
}

func (c *converter) slot(r *row) {
	d := c.d
	ct := engine.ClassTime{ID: d.id(r), RoomID: d.ref(r, "area_id", true)}
	c.exists(r, "area_id", "areas", ct.RoomID, has(c.areas, ct.RoomID))
	if day, ok := d.integer(r, "day", true); ok {
		if day < 0 || day > 6 {
			d.fail(r, "day", "must be 0 (Sunday) to 6 (Saturday), not %d", day)
		}
		ct.Weekday = time.Weekday(day)
	}
	start, end := c.span(r, "start_time", "end_time", true)
	ct.Start, ct.End = start, end
	ct.Label = d.text(r, "label", false)
	ct.Capacity = d.count(r, "capacity", 0, 1<<20, 0)
	ct.Type = d.text(r, "type", false)
	ct.Buffer = d.count(r, "buffer_minutes", 0, 24*60, 0)
	ct.Inactive = !d.flag(r, "active", true)
	if ct.ID != 0 {
		c.slots[ct.ID] = len(c.st.ClassTimes)
		c.st.ClassTimes = append(c.st.ClassTimes, ct)
	}
}

// span reads a start and an end time and checks their order.
func (c *converter) span(r *row, startField, endField string, required bool) (engine.LocalTime, engine.LocalTime) {
	start := c.d.clock(r, startField, required)
	end := c.d.clock(r, endField, required)
	if start == nil || end == nil {
		return 0, 0
	}
	if *start == engine.EndOfDay {
		c.d.fail(r, startField, "24:00 is the end of the day; a session cannot start then")
	} else if *end <= *start {
		c.d.fail(r, endField, "%s must be after the start time %s", *end, *start)
	}
	return *start, *end
}

func (c *converter) pkg(r *row) {
	d := c.d
	p := &packageRow{id: d.id(r), name: d.text(r, "name", true), start: d.date(r, "anchor_date", true), end: d.date(r, "end_date", false)}
	if v, ok := d.integer(r, "cycle_length", true); ok {
		if v < 1 || v > engine.MaxCycle {
			d.fail(r, "cycle_length", "is %d; our rotations are 1 to %d weeks long", v, engine.MaxCycle)
		} else {
			p.cycle = int(v)
		}
	}
	if p.start != 0 && p.end != 0 && p.end <= p.start {
		d.fail(r, "end_date", "%s must be after the anchor date %s (the end date is the first day without the package)", p.end, p.start)
	}
	if p.id != 0 && p.start != 0 && p.cycle != 0 && strings.TrimSpace(p.name) != "" {
		c.packages[p.id] = p
		c.packageOrder = append(c.packageOrder, p.id)
	}
}

func (c *converter) entry(r *row) {
	d := c.d
	e := &entryRow{id: d.id(r), pkg: d.ref(r, "package_id", true), slot: d.ref(r, "slot_id", true), class: d.ref(r, "class_id", true)}
	week, hasWeek := d.integer(r, "week_position", true)
	p := c.packages[e.pkg]
	pkgOK := c.exists(r, "package_id", "packages", e.pkg, p != nil)
	slotOK := c.exists(r, "slot_id", "slots", e.slot, has(c.slots, e.slot))
	classOK := c.exists(r, "class_id", "classes", e.class, c.classes[e.class] != nil)
	switch {
	case hasWeek && week < 1:
		d.fail(r, "week_position", "is %d; weeks of a rotation count from 1", week)
	case hasWeek && pkgOK && week > int64(p.cycle):
		// The reference keeps such an entry but never finds its week.
		d.note("package_entries", "", "entry %d is in week %d of package %d, which has a %d-week rotation, so it never runs; not imported",
			e.id, week, e.pkg, p.cycle)
	case e.id == 0 || !pkgOK || !slotOK || !classOK || !hasWeek:
	default:
		e.week = int(week)
		for _, o := range p.entries {
			if o.slot == e.slot && o.week == e.week {
				if o.class == e.class {
					d.note("package_entries", "", "entry %d repeats entry %d (package %d, slot %d, class %d, week %d); imported once",
						e.id, o.id, e.pkg, e.slot, e.class, e.week)
					return
				}
				d.fail(r, "class_id", "package %d already has class %d in slot %d in week %d (entry %d); "+
					"our series hold one class per class time and week, so remove one of the two in the reference system",
					e.pkg, o.class, e.slot, e.week, o.id)
				return
			}
		}
		p.entries = append(p.entries, e)
		c.entryOrder = append(c.entryOrder, e)
	}
}

func (c *converter) plan(r *row) {
	d := c.d
	p := engine.Plan{ID: d.id(r), SeriesID: d.ref(r, "package_id", true), Name: d.text(r, "label", false)}
	c.exists(r, "package_id", "packages", p.SeriesID, c.packages[p.SeriesID] != nil)
	if n, ok := d.integer(r, "classes_per_month", false); ok {
		if n < 1 || n > 1<<20 {
			d.fail(r, "classes_per_month", "is %d; give 1 or more, or null for unlimited", n)
		}
		p.PerMonth = int(n)
	}
	p.Months = 1 // the reference's default
	if n, ok := d.integer(r, "months", false); ok {
		if n < 1 || n > 1200 {
			d.fail(r, "months", "is %d; a plan runs for 1 month or more", n)
		}
		p.Months = int(n)
	}
	var priced bool
	if p.Price, priced = d.money(r, "price"); !priced && p.ID != 0 {
		d.note("package_plans", "price", "plan %d has no price; it is free here until you set one", p.ID)
	}
	if p.ID != 0 {
		c.plans[p.ID] = p.SeriesID
		c.st.Plans = append(c.st.Plans, p)
	}
}

func (c *converter) member(r *row) {
	d := c.d
	m := engine.Client{ID: d.id(r), Name: d.text(r, "name", true), Email: d.text(r, "email", false)}
	if m.ID != 0 {
		c.members[m.ID] = true
		c.st.Clients = append(c.st.Clients, m)
	}
}

// subscription reads a package_members row. The table has no id (a member is
// on a package at most once), so subscriptions are numbered in row order.
func (c *converter) subscription(r *row) {
	d := c.d
	s := engine.Subscription{ID: int64(r.n), ClientID: d.ref(r, "member_id", true), SeriesID: d.ref(r, "package_id", true),
		PlanID: d.ref(r, "plan_id", false), Start: d.date(r, "start_date", false), End: d.date(r, "end_date", false)}
	c.exists(r, "member_id", "members", s.ClientID, c.members[s.ClientID])
	p := c.packages[s.SeriesID]
	pkgOK := c.exists(r, "package_id", "packages", s.SeriesID, p != nil)
	planOK := c.exists(r, "plan_id", "package_plans", s.PlanID, hasPlan(c.plans, s.PlanID))
	if pkgOK && planOK && c.plans[s.PlanID] != s.SeriesID {
		d.note("package_members", "plan_id", "member %d is on package %d with plan %d, which is a plan of package %d; "+
			"the subscription is imported without a plan", s.ClientID, s.SeriesID, s.PlanID, c.plans[s.PlanID])
		s.PlanID = 0
	}
	if pkgOK && s.Start == 0 {
		s.Start = p.start
		d.note("package_members", "start_date", "member %d is on package %d with no start date; the subscription starts with the package, on %s",
			s.ClientID, s.SeriesID, s.Start)
	}
	if s.Start != 0 && s.End != 0 && s.End < s.Start {
		d.fail(r, "end_date", "%s is before the start date %s (the end date is the last day of the subscription)", s.End, s.Start)
	}
	c.st.Subscriptions = append(c.st.Subscriptions, s)
}

func (c *converter) oneOff(r *row) {
	d := c.d
	o := engine.OneOff{ID: d.id(r), ClassID: d.ref(r, "class_id", true), RoomID: d.ref(r, "area_id", true), Date: d.date(r, "date", true)}
	c.exists(r, "class_id", "classes", o.ClassID, c.classes[o.ClassID] != nil)
	c.exists(r, "area_id", "areas", o.RoomID, has(c.areas, o.RoomID))
	o.Start, o.End = c.span(r, "start_time", "end_time", true)
	o.Label = d.text(r, "label", false)
	o.Note = d.text(r, "note", false)
	if o.ID != 0 {
		c.oneOffs[o.ID] = len(c.st.OneOffs)
		c.st.OneOffs = append(c.st.OneOffs, o)
	}
}

func (c *converter) attendee(r *row) {
	d := c.d
	o := d.ref(r, "one_off_id", true)
	m := d.ref(r, "member_id", true)
	i, ok := c.oneOffs[o]
	ok = c.exists(r, "one_off_id", "one_offs", o, ok)
	memberOK := c.exists(r, "member_id", "members", m, c.members[m])
	switch {
	case !ok || !memberOK:
	case slices.Contains(c.st.OneOffs[i].ClientIDs, m):
		d.note("one_off_members", "", "member %d is listed twice for one-off %d; imported once", m, o)
	default:
		c.st.OneOffs[i].ClientIDs = append(c.st.OneOffs[i].ClientIDs, m)
	}
}

// change reads a session change: date, slot_id and class_id name the
// session as the package puts it; area_id, start_time and end_time are its
// new room and times.
func (c *converter) change(r *row) {
	d := c.d
	ch := &changeRow{row: r, id: d.id(r), date: d.date(r, "date", true), slot: d.ref(r, "slot_id", true), class: d.ref(r, "class_id", true)}
	ch.cancelled = d.flag(r, "cancelled", false)
	ch.newDate = d.date(r, "new_date", false)
	ch.newArea = d.ref(r, "area_id", false)
	ch.newStart = d.clock(r, "start_time", false)
	ch.newEnd = d.clock(r, "end_time", false)
	ch.newClass = d.ref(r, "new_class_id", false)
	ch.note = d.text(r, "note", false)
	si, slotOK := c.slots[ch.slot]
	slotOK = c.exists(r, "slot_id", "slots", ch.slot, slotOK)
	c.exists(r, "class_id", "classes", ch.class, c.classes[ch.class] != nil)
	c.exists(r, "area_id", "areas", ch.newArea, has(c.areas, ch.newArea))
	c.exists(r, "new_class_id", "classes", ch.newClass, c.classes[ch.newClass] != nil)
	if slotOK && (ch.newStart != nil || ch.newEnd != nil) {
		ct := c.st.ClassTimes[si]
		start, end := ct.Start, ct.End
		if ch.newStart != nil {
			start = *ch.newStart
		}
		if ch.newEnd != nil {
			end = *ch.newEnd
		}
		if start == engine.EndOfDay || end <= start {
			d.fail(r, "end_time", "the changed session would run %s–%s; its end must be after its start", start, end)
		}
	}
	if ch.id != 0 {
		c.changes = append(c.changes, ch)
	}
}

func has(m map[int64]int, id int64) bool {
	_, ok := m[id]
	return ok
}

func hasPlan(m map[int64]int64, id int64) bool {
	_, ok := m[id]
	return ok
}
