package models

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// SaveState writes the difference between before (what the database holds
// for business b) and after, as revision rev. Rows of after with a negative
// id are new: they are inserted, get real ids, and every reference to them
// in after is rewritten; the map from temporary to real ids is returned.
// after ends up canonical (see canonical), equal to what LoadState will read
// back. Every row written carries rev, what is removed leaves a tombstone,
// and v (the versions of before, which SaveState changes) becomes the
// versions of after.
func SaveState(ctx context.Context, db bun.IDB, b *Business, before engine.State, after *engine.State, rev int64, v *Versions) (map[int64]int64, error) {
	w := &saver{ctx: ctx, db: db, b: b.ID, ids: map[int64]int64{}, rev: rev, v: v}
	if !sameSettings(before.Business, after.Business) {
		row := *b
		row.SetSettings(after.Business)
		row.SettingsRevision = rev
		if _, err := db.NewUpdate().Model(&row).Column("name", "kind", "currency", "time_zone", "week_start", "settings_revision").WherePK().Exec(ctx); err != nil {
			return nil, fmt.Errorf("saving the business settings: %w", err)
		}
		*b = row
		v.Settings = rev
	}
	// Inserts go in the order of references, and each table's new ids are
	// written into after before the next table, so every row refers to real
	// rows when it is inserted.
	for _, t := range tables {
		if err := t.insert(w, after); err != nil {
			return nil, err
		}
	}
	canonical(after)
	for _, t := range tables {
		if err := t.update(w, &before, after); err != nil {
			return nil, err
		}
	}
	if err := w.changes(before.Changes, after.Changes); err != nil {
		return nil, err
	}
	// Deletes go last, from the tables that refer to others to the ones they
	// refer to.
	for i := len(tables) - 1; i >= 0; i-- {
		if err := tables[i].remove(w, &before, after); err != nil {
			return nil, err
		}
	}
	if err := w.flushTombstones(); err != nil {
		return nil, err
	}
	v.prepare()
	return w.ids, nil
}

func sameSettings(a, b engine.Business) bool {
	return a.Kind == b.Kind && a.Name == b.Name && a.Currency == b.Currency && a.WeekStart == b.WeekStart &&
		a.Location.String() == b.Location.String()
}

type saver struct {
	ctx    context.Context
	db     bun.IDB
	b      int64
	ids    map[int64]int64
	rev    int64
	v      *Versions
	stones []Tombstone
}

func (w *saver) tombstone(t Tombstone) {
	t.BusinessID, t.Revision = w.b, w.rev
	w.stones = append(w.stones, t)
	w.v.addTombstone(t)
}

func (w *saver) flushTombstones() error {
	if len(w.stones) == 0 {
		return nil
	}
	if _, err := w.db.NewInsert().Model(&w.stones).Exec(w.ctx); err != nil {
		return fmt.Errorf("recording removals: %w", err)
	}
	return nil
}

// revisioned is every schedule row: it carries the revision that wrote it.
type revisioned interface{ setRevision(int64) }

// tableSaver writes one table of the schedule.
type tableSaver interface {
	insert(w *saver, after *engine.State) error
	update(w *saver, before, after *engine.State) error
	remove(w *saver, before, after *engine.State) error
}

// table describes how values of engine type T are stored as rows of type R.
type table[T, R any] struct {
	kind  Table
	list  func(*engine.State) []T
	id    func(*T) *int64
	row   func(b int64, v T) R
	rowID func(*R) int64
	// children, when set, rewrites the rows that belong to a value (a
	// class's staff, a closure's rooms); fresh means nothing to delete first.
	children func(w *saver, v T, fresh bool) error
	// wrote and removed, when set, note a written or a removed value in the
	// versions; by default a written row is noted by its id.
	wrote   func(w *saver, v T)
	removed func(w *saver, v T)
}

func (t table[T, R]) noteWritten(w *saver, v T) {
	if t.wrote != nil {
		t.wrote(w, v)
		return
	}
	w.v.setRow(t.kind, *t.id(&v), w.rev)
}

var tables = []tableSaver{
	table[engine.Room, Room]{kind: RoomsTable,
		list: func(s *engine.State) []engine.Room { return s.Rooms }, id: func(v *engine.Room) *int64 { return &v.ID },
		row: func(b int64, v engine.Room) Room { return *roomRow(b, v) }, rowID: func(r *Room) int64 { return r.ID },
	},
	table[engine.Staff, Staff]{kind: StaffTable,
		list: func(s *engine.State) []engine.Staff { return s.Staff }, id: func(v *engine.Staff) *int64 { return &v.ID },
		row: func(b int64, v engine.Staff) Staff { return *staffRow(b, v) }, rowID: func(r *Staff) int64 { return r.ID },
	},
	table[engine.Activity, Activity]{kind: ActivitiesTable,
		list: func(s *engine.State) []engine.Activity { return s.Activities }, id: func(v *engine.Activity) *int64 { return &v.ID },
		row: func(b int64, v engine.Activity) Activity { return *activityRow(b, v) }, rowID: func(r *Activity) int64 { return r.ID },
	},
	table[engine.Class, Class]{kind: ClassesTable,
		list: func(s *engine.State) []engine.Class { return s.Classes }, id: func(v *engine.Class) *int64 { return &v.ID },
		row: func(b int64, v engine.Class) Class { return *classRow(b, v) }, rowID: func(r *Class) int64 { return r.ID },
		children: func(w *saver, v engine.Class, fresh bool) error {
			rows := classStaffRows(w.b, v)
			return w.replaceChildren((*ClassStaff)(nil), "class_id", v.ID, fresh, &rows)
		},
	},
	table[engine.ClassTime, ClassTime]{kind: ClassTimesTable,
		list: func(s *engine.State) []engine.ClassTime { return s.ClassTimes }, id: func(v *engine.ClassTime) *int64 { return &v.ID },
		row: func(b int64, v engine.ClassTime) ClassTime { return *classTimeRow(b, v) }, rowID: func(r *ClassTime) int64 { return r.ID },
	},
	table[engine.Series, Series]{kind: SeriesTable,
		list: func(s *engine.State) []engine.Series { return s.Series }, id: func(v *engine.Series) *int64 { return &v.ID },
		row: func(b int64, v engine.Series) Series { return *seriesRow(b, v) }, rowID: func(r *Series) int64 { return r.ID },
	},
	table[engine.Entry, SeriesEntry]{kind: EntriesTable,
		list: func(s *engine.State) []engine.Entry { return s.Entries }, id: func(v *engine.Entry) *int64 { return &v.ID },
		row: func(b int64, v engine.Entry) SeriesEntry { return *entryRow(b, v) }, rowID: func(r *SeriesEntry) int64 { return r.ID },
		wrote: func(w *saver, e engine.Entry) { w.v.bump(w.v.groups, [2]int64{e.ClassTimeID, e.ClassID}, w.rev) },
		removed: func(w *saver, e engine.Entry) {
			w.tombstone(Tombstone{Kind: "group", ClassTimeID: e.ClassTimeID, ClassID: e.ClassID})
		},
	},
	table[engine.Plan, Plan]{kind: PlansTable,
		list: func(s *engine.State) []engine.Plan { return s.Plans }, id: func(v *engine.Plan) *int64 { return &v.ID },
		row: func(b int64, v engine.Plan) Plan { return *planRow(b, v) }, rowID: func(r *Plan) int64 { return r.ID },
	},
	table[engine.OneOff, OneOff]{kind: OneOffsTable,
		list: func(s *engine.State) []engine.OneOff { return s.OneOffs }, id: func(v *engine.OneOff) *int64 { return &v.ID },
		row: func(b int64, v engine.OneOff) OneOff { return *oneOffRow(b, v) }, rowID: func(r *OneOff) int64 { return r.ID },
	},
	table[engine.Closure, Closure]{kind: ClosuresTable,
		list: func(s *engine.State) []engine.Closure { return s.Closures }, id: func(v *engine.Closure) *int64 { return &v.ID },
		row: func(b int64, v engine.Closure) Closure { return *closureRow(b, v) }, rowID: func(r *Closure) int64 { return r.ID },
		children: func(w *saver, v engine.Closure, fresh bool) error {
			rows := make([]ClosureRoom, len(v.RoomIDs))
			for i, r := range v.RoomIDs {
				rows[i] = ClosureRoom{BusinessID: w.b, ClosureID: v.ID, RoomID: r}
			}
			return w.replaceChildren((*ClosureRoom)(nil), "closure_id", v.ID, fresh, &rows)
		},
		wrote: func(w *saver, c engine.Closure) { w.v.setRow(ClosuresTable, c.ID, w.rev); w.v.addClosure(c, w.rev) },
		removed: func(w *saver, c engine.Closure) {
			kind := "closure"
			if c.Pause {
				kind = "pause"
			}
			w.tombstone(Tombstone{Kind: kind, FromDate: Day(c.From), ToDate: Day(c.To)})
		},
	},
	// Capacity and room bookings change no session's content: nothing to
	// note in the versions.
	table[engine.CapacityRule, CapacityRule]{kind: CapacityTable,
		list: func(s *engine.State) []engine.CapacityRule { return s.Capacity }, id: func(v *engine.CapacityRule) *int64 { return &v.ID },
		row: func(b int64, v engine.CapacityRule) CapacityRule { return *capacityRow(b, v) }, rowID: func(r *CapacityRule) int64 { return r.ID },
		wrote: func(*saver, engine.CapacityRule) {},
	},
	table[engine.RoomBooking, RoomBooking]{kind: RoomBookingsTable,
		list: func(s *engine.State) []engine.RoomBooking { return s.RoomBookings }, id: func(v *engine.RoomBooking) *int64 { return &v.ID },
		row: func(b int64, v engine.RoomBooking) RoomBooking { return *roomBookingRow(b, v) }, rowID: func(r *RoomBooking) int64 { return r.ID },
		wrote: func(*saver, engine.RoomBooking) {},
	},
}

func (t table[T, R]) insert(w *saver, after *engine.State) error {
	list := t.list(after)
	var rows []R
	var temp []int64
	for i := range list {
		if id := *t.id(&list[i]); id < 0 {
			v := list[i]
			*t.id(&v) = 0
			r := t.row(w.b, v)
			any(&r).(revisioned).setRevision(w.rev)
			rows = append(rows, r)
			temp = append(temp, id)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	if _, err := w.db.NewInsert().Model(&rows).Returning("id").Exec(w.ctx); err != nil {
		return fmt.Errorf("inserting %T: %w", rows[0], err)
	}
	found := make(map[int64]int64, len(rows))
	fresh := make(map[int64]bool, len(rows))
	for i := range rows {
		id := t.rowID(&rows[i])
		found[temp[i]], w.ids[temp[i]], fresh[id] = id, id, true
	}
	Remap(after, found)
	for _, v := range t.list(after) {
		if !fresh[*t.id(&v)] {
			continue
		}
		t.noteWritten(w, v)
		if t.children != nil {
			if err := t.children(w, v, true); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t table[T, R]) update(w *saver, before, after *engine.State) error {
	old := make(map[int64]*T)
	bl := t.list(before)
	for i := range bl {
		old[*t.id(&bl[i])] = &bl[i]
	}
	for _, v := range t.list(after) {
		prev, ok := old[*t.id(&v)]
		if !ok || reflect.DeepEqual(*prev, v) {
			continue
		}
		r := t.row(w.b, v)
		any(&r).(revisioned).setRevision(w.rev)
		if _, err := w.db.NewUpdate().Model(&r).WherePK().Where("business_id = ?", w.b).Exec(w.ctx); err != nil {
			return fmt.Errorf("updating %T: %w", r, err)
		}
		t.noteWritten(w, v)
		if t.removed != nil {
			t.removed(w, *prev) // what it was no longer is
		}
		if t.children != nil {
			if err := t.children(w, v, false); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t table[T, R]) remove(w *saver, before, after *engine.State) error {
	keep := make(map[int64]bool)
	al := t.list(after)
	for i := range al {
		keep[*t.id(&al[i])] = true
	}
	var gone []int64
	bl := t.list(before)
	for i := range bl {
		if id := *t.id(&bl[i]); !keep[id] {
			gone = append(gone, id)
			if t.removed != nil {
				t.removed(w, bl[i])
			}
		}
	}
	if len(gone) == 0 {
		return nil
	}
	if _, err := w.db.NewDelete().Model((*R)(nil)).Where("business_id = ?", w.b).Where("id IN (?)", bun.In(gone)).Exec(w.ctx); err != nil {
		return fmt.Errorf("deleting %T: %w", (*R)(nil), err)
	}
	return nil
}

// replaceChildren replaces the child rows of one parent.
func (w *saver) replaceChildren(model any, parent string, id int64, fresh bool, rows any) error {
	if !fresh {
		if _, err := w.db.NewDelete().Model(model).Where("business_id = ?", w.b).Where("? = ?", bun.Ident(parent), id).Exec(w.ctx); err != nil {
			return fmt.Errorf("replacing %T: %w", model, err)
		}
	}
	if reflect.ValueOf(rows).Elem().Len() == 0 {
		return nil
	}
	if _, err := w.db.NewInsert().Model(rows).Exec(w.ctx); err != nil {
		return fmt.Errorf("inserting %T: %w", rows, err)
	}
	return nil
}

// changes writes day changes, which are known by the session they change
// rather than by an id.
func (w *saver) changes(before, after []engine.DayChange) error {
	old := make(map[engine.SessionRef]*engine.DayChange, len(before))
	for i := range before {
		old[before[i].Ref] = &before[i]
	}
	keep := make(map[engine.SessionRef]bool, len(after))
	for _, c := range after {
		keep[c.Ref] = true
		prev, ok := old[c.Ref]
		if ok && reflect.DeepEqual(*prev, c) {
			continue
		}
		if ok {
			if err := w.deleteChange(c.Ref); err != nil {
				return err
			}
		}
		row := changeRow(w.b, 0, c)
		row.Revision = w.rev
		w.v.changes[c.Ref] = w.rev
		if _, err := w.db.NewInsert().Model(row).Returning("id").Exec(w.ctx); err != nil {
			return fmt.Errorf("saving a day change: %w", err)
		}
		if c.StaffIDs != nil {
			rows := make([]DayChangeStaff, len(c.StaffIDs))
			for i, s := range c.StaffIDs {
				rows[i] = DayChangeStaff{BusinessID: w.b, DayChangeID: row.ID, StaffID: s, Position: i}
			}
			if _, err := w.db.NewInsert().Model(&rows).Exec(w.ctx); err != nil {
				return fmt.Errorf("saving a cover: %w", err)
			}
		}
	}
	for _, c := range before {
		if !keep[c.Ref] {
			if err := w.deleteChange(c.Ref); err != nil {
				return err
			}
			w.tombstone(Tombstone{Kind: "change", OrigDate: Day(c.Ref.Date), ClassTimeID: c.Ref.ClassTimeID, ClassID: c.Ref.ClassID})
		}
	}
	return nil
}

func (w *saver) deleteChange(ref engine.SessionRef) error {
	_, err := w.db.NewDelete().Model((*DayChange)(nil)).Where("business_id = ?", w.b).
		Where("orig_date = ?", Day(ref.Date)).Where("class_time_id = ?", ref.ClassTimeID).Where("class_id = ?", ref.ClassID).
		Exec(w.ctx)
	if err != nil {
		return fmt.Errorf("deleting a day change: %w", err)
	}
	return nil
}

// Table names the tables whose ids a state refers to.
type Table int

const (
	RoomsTable Table = iota
	StaffTable
	ActivitiesTable
	ClassesTable
	ClassTimesTable
	SeriesTable
	EntriesTable
	PlansTable
	OneOffsTable
	ClosuresTable
	ClientsTable
	CapacityTable
	RoomBookingsTable
)

// Remap rewrites ids in s through m (temporary to real; temporary ids are
// unique across tables), in the rows themselves and in every reference to
// them.
func Remap(s *engine.State, m map[int64]int64) {
	remap(s, func(_ Table, id int64) int64 {
		if v, ok := m[id]; ok {
			return v
		}
		return id
	})
}

// Renumber gives every row of s a new temporary id from next, table by
// table, so that a whole schedule (a demo, an import) can be written as new
// rows.
func Renumber(s *engine.State, next func() int64) {
	maps := make(map[Table]map[int64]int64)
	remap(s, func(t Table, id int64) int64 {
		m := maps[t]
		if m == nil {
			m = make(map[int64]int64)
			maps[t] = m
		}
		v, ok := m[id]
		if !ok {
			v = next()
			m[id] = v
		}
		return v
	})
}

// remap rewrites every id of s, and every reference, with f.
func remap(s *engine.State, f func(Table, int64) int64) {
	id := func(t Table, p *int64) {
		if *p != 0 {
			*p = f(t, *p)
		}
	}
	ids := func(t Table, l []int64) {
		for i := range l {
			id(t, &l[i])
		}
	}
	for i := range s.Rooms {
		id(RoomsTable, &s.Rooms[i].ID)
	}
	for i := range s.Staff {
		id(StaffTable, &s.Staff[i].ID)
	}
	for i := range s.Activities {
		id(ActivitiesTable, &s.Activities[i].ID)
	}
	for i := range s.Classes {
		c := &s.Classes[i]
		id(ClassesTable, &c.ID)
		id(ActivitiesTable, &c.ActivityID)
		ids(StaffTable, c.StaffIDs)
	}
	for i := range s.ClassTimes {
		id(ClassTimesTable, &s.ClassTimes[i].ID)
		id(RoomsTable, &s.ClassTimes[i].RoomID)
	}
	for i := range s.Series {
		id(SeriesTable, &s.Series[i].ID)
	}
	for i := range s.Entries {
		e := &s.Entries[i]
		id(EntriesTable, &e.ID)
		id(SeriesTable, &e.SeriesID)
		id(ClassTimesTable, &e.ClassTimeID)
		id(ClassesTable, &e.ClassID)
	}
	for i := range s.Plans {
		id(PlansTable, &s.Plans[i].ID)
		id(SeriesTable, &s.Plans[i].SeriesID)
	}
	for i := range s.Clients {
		id(ClientsTable, &s.Clients[i].ID)
	}
	for i := range s.Subscriptions {
		sub := &s.Subscriptions[i]
		id(ClientsTable, &sub.ClientID)
		id(SeriesTable, &sub.SeriesID)
		id(PlansTable, &sub.PlanID)
	}
	for i := range s.OneOffs {
		o := &s.OneOffs[i]
		id(OneOffsTable, &o.ID)
		id(ClassesTable, &o.ClassID)
		id(RoomsTable, &o.RoomID)
		ids(ClientsTable, o.ClientIDs)
	}
	for i := range s.Changes {
		c := &s.Changes[i]
		id(ClassTimesTable, &c.Ref.ClassTimeID)
		id(ClassesTable, &c.Ref.ClassID)
		id(RoomsTable, &c.RoomID)
		id(ClassesTable, &c.ClassID)
		ids(StaffTable, c.StaffIDs)
	}
	for i := range s.Closures {
		c := &s.Closures[i]
		id(ClosuresTable, &c.ID)
		ids(RoomsTable, c.RoomIDs)
		slices.Sort(c.RoomIDs)
	}
	for i := range s.Capacity {
		id(CapacityTable, &s.Capacity[i].ID)
		id(RoomsTable, &s.Capacity[i].RoomID)
	}
	for i := range s.RoomBookings {
		b := &s.RoomBookings[i]
		id(RoomBookingsTable, &b.ID)
		id(RoomsTable, &b.RoomID)
		id(ClientsTable, &b.ClientID)
	}
}
