package models

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// tables is every table of a business's own data, and the one list that
// saving (SaveState), loading (LoadState), id rewriting (Remap, Renumber),
// the stored form of a state (canonical) and backups walk. A table comes
// after the tables its rows refer to, and its children (the rows holding a
// list of its values, such as a class's staff) belong to it: saving inserts
// in this order and deletes in the reverse, a backup writes and restores in
// it. A new table is its migration, its row type and one entry here; the
// tests fail while a list of engine.State or a row type is in no entry.
var tables = []storedTable{
	table[engine.Room, Room]{kind: RoomsTable,
		slice: func(s *engine.State) *[]engine.Room { return &s.Rooms }, id: func(v *engine.Room) *int64 { return &v.ID },
		value: (*Room).Engine, row: roomRow, rowID: func(r *Room) int64 { return r.ID },
	},
	table[engine.Staff, Staff]{kind: StaffTable,
		slice: func(s *engine.State) *[]engine.Staff { return &s.Staff }, id: func(v *engine.Staff) *int64 { return &v.ID },
		value: (*Staff).Engine, row: staffRow, rowID: func(r *Staff) int64 { return r.ID },
	},
	table[engine.Activity, Activity]{kind: ActivitiesTable,
		slice: func(s *engine.State) *[]engine.Activity { return &s.Activities }, id: func(v *engine.Activity) *int64 { return &v.ID },
		value: (*Activity).Engine, row: activityRow, rowID: func(r *Activity) int64 { return r.ID },
	},
	table[engine.Class, Class]{kind: ClassesTable,
		slice: func(s *engine.State) *[]engine.Class { return &s.Classes }, id: func(v *engine.Class) *int64 { return &v.ID },
		refs:  func(v *engine.Class, ref func(Table, *int64)) { ref(ActivitiesTable, &v.ActivityID) },
		value: (*Class).Engine, row: classRow, rowID: func(r *Class) int64 { return r.ID },
		kids: []childTable[engine.Class, Class]{
			idList[engine.Class, Class, ClassStaff]{column: "class_id", order: "class_id, position", kind: StaffTable,
				list: func(v *engine.Class) *[]int64 { return &v.StaffIDs },
				row: func(b, class int64, i int, staff int64) ClassStaff {
					return ClassStaff{BusinessID: b, ClassID: class, StaffID: staff, Position: i}
				},
				of: func(r *ClassStaff) (int64, int64) { return r.ClassID, r.StaffID },
			},
		},
	},
	table[engine.ClassTime, ClassTime]{kind: ClassTimesTable,
		slice: func(s *engine.State) *[]engine.ClassTime { return &s.ClassTimes }, id: func(v *engine.ClassTime) *int64 { return &v.ID },
		refs:  func(v *engine.ClassTime, ref func(Table, *int64)) { ref(RoomsTable, &v.RoomID) },
		value: (*ClassTime).Engine, row: classTimeRow, rowID: func(r *ClassTime) int64 { return r.ID },
	},
	table[engine.Series, Series]{kind: SeriesTable,
		slice: func(s *engine.State) *[]engine.Series { return &s.Series }, id: func(v *engine.Series) *int64 { return &v.ID },
		value: (*Series).Engine, row: seriesRow, rowID: func(r *Series) int64 { return r.ID },
	},
	table[engine.Entry, SeriesEntry]{kind: EntriesTable,
		slice: func(s *engine.State) *[]engine.Entry { return &s.Entries }, id: func(v *engine.Entry) *int64 { return &v.ID },
		refs: func(v *engine.Entry, ref func(Table, *int64)) {
			ref(SeriesTable, &v.SeriesID)
			ref(ClassTimesTable, &v.ClassTimeID)
			ref(ClassesTable, &v.ClassID)
		},
		value: (*SeriesEntry).Engine, row: entryRow, rowID: func(r *SeriesEntry) int64 { return r.ID },
		// A session is made by every entry of its class time and class:
		// the versions keep the newest write or removal of any of them.
		note: func(v *Versions, e engine.Entry, rev int64) {
			v.bump(v.groups, [2]int64{e.ClassTimeID, e.ClassID}, rev)
		},
		removed: func(w *saver, e engine.Entry) {
			w.tombstone(Tombstone{Kind: "group", ClassTimeID: e.ClassTimeID, ClassID: e.ClassID})
		},
	},
	table[engine.Plan, Plan]{kind: PlansTable,
		slice: func(s *engine.State) *[]engine.Plan { return &s.Plans }, id: func(v *engine.Plan) *int64 { return &v.ID },
		refs:  func(v *engine.Plan, ref func(Table, *int64)) { ref(SeriesTable, &v.SeriesID) },
		value: (*Plan).Engine, row: planRow, rowID: func(r *Plan) int64 { return r.ID },
	},
	// Clients and subscriptions are stored apart: a gym with thousands of
	// members should not reload them to compute a week (see Client). Writes
	// change them with their own queries (clients.go, ReplaceSchedule).
	table[engine.Client, Client]{kind: ClientsTable, apart: true,
		slice: func(s *engine.State) *[]engine.Client { return &s.Clients }, id: func(v *engine.Client) *int64 { return &v.ID },
		value: (*Client).Engine, row: clientRow, rowID: func(r *Client) int64 { return r.ID },
	},
	table[engine.Subscription, Subscription]{kind: SubscriptionsTable, apart: true,
		slice: func(s *engine.State) *[]engine.Subscription { return &s.Subscriptions },
		id:    func(v *engine.Subscription) *int64 { return &v.ID },
		refs: func(v *engine.Subscription, ref func(Table, *int64)) {
			ref(ClientsTable, &v.ClientID)
			ref(SeriesTable, &v.SeriesID)
			ref(PlansTable, &v.PlanID)
		},
		value: (*Subscription).Engine, row: subscriptionRow, rowID: func(r *Subscription) int64 { return r.ID },
	},
	table[engine.OneOff, OneOff]{kind: OneOffsTable,
		slice: func(s *engine.State) *[]engine.OneOff { return &s.OneOffs }, id: func(v *engine.OneOff) *int64 { return &v.ID },
		refs: func(v *engine.OneOff, ref func(Table, *int64)) {
			ref(ClassesTable, &v.ClassID)
			ref(RoomsTable, &v.RoomID)
		},
		value: (*OneOff).Engine, row: oneOffRow, rowID: func(r *OneOff) int64 { return r.ID },
		kids: []childTable[engine.OneOff, OneOff]{
			// Who comes to a one-off is stored apart, like the clients.
			idList[engine.OneOff, OneOff, OneOffClient]{column: "one_off_id", order: "one_off_id, client_id", kind: ClientsTable, apart: true,
				list: func(v *engine.OneOff) *[]int64 { return &v.ClientIDs },
				row: func(b, oneOff int64, _ int, client int64) OneOffClient {
					return OneOffClient{BusinessID: b, OneOffID: oneOff, ClientID: client}
				},
				of: func(r *OneOffClient) (int64, int64) { return r.OneOffID, r.ClientID },
			},
		},
	},
	// A day change is known by its session, not by an id: its row is
	// replaced whenever it changes (saver.changes).
	table[engine.DayChange, DayChange]{loadOrder: "orig_date, class_time_id, class_id",
		slice: func(s *engine.State) *[]engine.DayChange { return &s.Changes },
		refs: func(v *engine.DayChange, ref func(Table, *int64)) {
			ref(ClassTimesTable, &v.Ref.ClassTimeID)
			ref(ClassesTable, &v.Ref.ClassID)
			ref(RoomsTable, &v.RoomID)
			ref(ClassesTable, &v.ClassID)
		},
		value: (*DayChange).Engine, row: changeRow, rowID: func(r *DayChange) int64 { return r.ID },
		note: func(v *Versions, c engine.DayChange, rev int64) { v.changes[c.Ref] = rev },
		save: (*saver).changes,
		kids: []childTable[engine.DayChange, DayChange]{
			idList[engine.DayChange, DayChange, DayChangeStaff]{column: "day_change_id", order: "day_change_id, position", kind: StaffTable,
				list: func(v *engine.DayChange) *[]int64 { return &v.StaffIDs },
				// Without a cover the change keeps the class's staff (nil).
				when: func(r *DayChange) bool { return r.NewStaff },
				row: func(b, change int64, i int, staff int64) DayChangeStaff {
					return DayChangeStaff{BusinessID: b, DayChangeID: change, StaffID: staff, Position: i}
				},
				of: func(r *DayChangeStaff) (int64, int64) { return r.DayChangeID, r.StaffID },
			},
		},
	},
	table[engine.Closure, Closure]{kind: ClosuresTable,
		slice: func(s *engine.State) *[]engine.Closure { return &s.Closures }, id: func(v *engine.Closure) *int64 { return &v.ID },
		value: (*Closure).Engine, row: closureRow, rowID: func(r *Closure) int64 { return r.ID },
		note: func(v *Versions, c engine.Closure, rev int64) {
			v.setRow(ClosuresTable, c.ID, rev)
			v.addClosure(c, rev)
		},
		removed: func(w *saver, c engine.Closure) {
			kind := "closure"
			if c.Pause {
				kind = "pause"
			}
			w.tombstone(Tombstone{Kind: kind, FromDate: Day(c.From), ToDate: Day(c.To)})
		},
		kids: []childTable[engine.Closure, Closure]{
			idList[engine.Closure, Closure, ClosureRoom]{column: "closure_id", order: "closure_id, room_id", kind: RoomsTable, set: true,
				list: func(v *engine.Closure) *[]int64 { return &v.RoomIDs },
				row: func(b, closure int64, _ int, room int64) ClosureRoom {
					return ClosureRoom{BusinessID: b, ClosureID: closure, RoomID: room}
				},
				of: func(r *ClosureRoom) (int64, int64) { return r.ClosureID, r.RoomID },
			},
		},
	},
	// Capacity and room bookings change no session's content: nothing to
	// note in the versions.
	table[engine.CapacityRule, CapacityRule]{kind: CapacityTable,
		slice: func(s *engine.State) *[]engine.CapacityRule { return &s.Capacity }, id: func(v *engine.CapacityRule) *int64 { return &v.ID },
		refs:  func(v *engine.CapacityRule, ref func(Table, *int64)) { ref(RoomsTable, &v.RoomID) },
		value: (*CapacityRule).Engine, row: capacityRow, rowID: func(r *CapacityRule) int64 { return r.ID },
		note: func(*Versions, engine.CapacityRule, int64) {},
	},
	table[engine.RoomBooking, RoomBooking]{kind: RoomBookingsTable,
		slice: func(s *engine.State) *[]engine.RoomBooking { return &s.RoomBookings }, id: func(v *engine.RoomBooking) *int64 { return &v.ID },
		refs: func(v *engine.RoomBooking, ref func(Table, *int64)) {
			ref(RoomsTable, &v.RoomID)
			ref(ClientsTable, &v.ClientID)
		},
		value: (*RoomBooking).Engine, row: roomBookingRow, rowID: func(r *RoomBooking) int64 { return r.ID },
		note: func(*Versions, engine.RoomBooking, int64) {},
	},
	// A standing place makes no session: like a room booking, nothing to
	// note in the versions. Its skipped dates follow it.
	table[engine.Standing, StandingBooking]{kind: StandingTable,
		slice: func(s *engine.State) *[]engine.Standing { return &s.Standing }, id: func(v *engine.Standing) *int64 { return &v.ID },
		refs: func(v *engine.Standing, ref func(Table, *int64)) {
			ref(ClientsTable, &v.ClientID)
			ref(ClassTimesTable, &v.ClassTimeID)
			ref(ClassesTable, &v.ClassID)
		},
		value: (*StandingBooking).Engine, row: standingRow, rowID: func(r *StandingBooking) int64 { return r.ID },
		note: func(*Versions, engine.Standing, int64) {},
	},
	table[engine.StandingSkip, StandingSkip]{kind: StandingSkipsTable,
		slice: func(s *engine.State) *[]engine.StandingSkip { return &s.StandingSkips }, id: func(v *engine.StandingSkip) *int64 { return &v.ID },
		refs:  func(v *engine.StandingSkip, ref func(Table, *int64)) { ref(StandingTable, &v.StandingID) },
		value: (*StandingSkip).Engine, row: standingSkipRow, rowID: func(r *StandingSkip) int64 { return r.ID },
		note: func(*Versions, engine.StandingSkip, int64) {},
	},
	// Time off and working hours say who is away, not what happens: the
	// sessions they reach need cover, but are the same sessions.
	table[engine.TimeOff, TimeOff]{kind: TimeOffsTable,
		slice: func(s *engine.State) *[]engine.TimeOff { return &s.TimeOffs }, id: func(v *engine.TimeOff) *int64 { return &v.ID },
		refs:  func(v *engine.TimeOff, ref func(Table, *int64)) { ref(StaffTable, &v.StaffID) },
		value: (*TimeOff).Engine, row: timeOffRow, rowID: func(r *TimeOff) int64 { return r.ID },
		// What its dates' sessions show (who needs cover) changes with it.
		note: func(v *Versions, o engine.TimeOff, rev int64) {
			v.setRow(TimeOffsTable, o.ID, rev)
			v.ranges = append(v.ranges, dated{o.From, o.To, rev})
		},
		removed: func(w *saver, o engine.TimeOff) {
			w.tombstone(Tombstone{Kind: "closure", FromDate: Day(o.From), ToDate: Day(o.To)})
		},
	},
	table[engine.WorkingHours, WorkingHours]{kind: HoursTable,
		slice: func(s *engine.State) *[]engine.WorkingHours { return &s.Hours }, id: func(v *engine.WorkingHours) *int64 { return &v.ID },
		refs:  func(v *engine.WorkingHours, ref func(Table, *int64)) { ref(StaffTable, &v.StaffID) },
		value: (*WorkingHours).Engine, row: hoursRow, rowID: func(r *WorkingHours) int64 { return r.ID },
		// Hours change what every session from their date on shows.
		note: func(v *Versions, h engine.WorkingHours, rev int64) {
			v.setRow(HoursTable, h.ID, rev)
			v.ranges = append(v.ranges, dated{h.From, engine.MaxDate, rev})
		},
		removed: func(w *saver, h engine.WorkingHours) {
			w.tombstone(Tombstone{Kind: "closure", FromDate: Day(h.From), ToDate: Day(engine.MaxDate)})
		},
	},
	table[engine.Qualification, Qualification]{kind: QualificationsTable,
		slice: func(s *engine.State) *[]engine.Qualification { return &s.Qualifications },
		id:    func(v *engine.Qualification) *int64 { return &v.ID },
		refs: func(v *engine.Qualification, ref func(Table, *int64)) {
			ref(StaffTable, &v.StaffID)
			ref(ActivitiesTable, &v.ActivityID)
		},
		value: (*Qualification).Engine, row: qualificationRow, rowID: func(r *Qualification) int64 { return r.ID },
	},
	// What has happened is no part of the engine's state, but it is the
	// business's data: backups hold it.
	pastTable[SessionBooking]{order: "id"},
	pastTable[AcceptedClash]{order: "key"},
}

// Table names the tables whose ids a state holds.
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
	SubscriptionsTable
	TimeOffsTable
	HoursTable
	StandingTable
	StandingSkipsTable
	QualificationsTable
)

// A storedTable is one entry of tables.
type storedTable interface {
	rowTable
	// children are the tables of the lists a value holds, saved, loaded
	// and backed up with it.
	children() []rowTable
	// list is the list of engine.State the table fills (a pointer to it),
	// or nil.
	list(s *engine.State) any
	// load reads the table's rows of rd's business into s (see
	// rowReader): s holds them once rd has run the reads.
	load(rd rowReader, s *engine.State, v *Versions) error
	insert(w *saver, after *engine.State) error
	update(w *saver, before, after *engine.State) error
	remove(w *saver, before, after *engine.State) error
	remap(s *engine.State, f func(Table, int64) int64)
	// temporary lists the rows of s that hold a temporary (negative) id,
	// their own or one they refer to; remapRows is remap on those rows.
	temporary(s *engine.State) []int
	remapRows(s *engine.State, rows []int, f func(Table, int64) int64)
	// dropApart removes from s what the table stores apart from the
	// schedule snapshot.
	dropApart(s *engine.State)
}

// rowTable is a stored table as bun and backups see it.
type rowTable interface {
	// rowType is the bun row type.
	rowType() reflect.Type
	// orderBy is the order of its rows in a backup (and when loaded,
	// unless the table says otherwise).
	orderBy() string
}

// table is a table of the schedule whose rows (type R) are the values of
// one list of engine.State (type T).
type table[T, R any] struct {
	kind  Table // what its ids are (when it has ids)
	slice func(*engine.State) *[]T
	// id is a value's id; nil for values known otherwise (day changes).
	id func(*T) *int64
	// refs calls ref with every id of another table that a value holds.
	refs  func(v *T, ref func(Table, *int64))
	value func(*R) T           // a row as an engine value, without its lists
	row   func(b int64, v T) R // an engine value as a row of business b
	rowID func(*R) int64
	// kids are the tables of the lists of ids a value holds.
	kids []childTable[T, R]
	// apart: stored outside the schedule snapshot. LoadState does not
	// read it and SaveState does not write it.
	apart bool
	// loadOrder, when set, is the order LoadState reads the rows in (the
	// state's canonical order) where it is not the id.
	loadOrder string
	// note records in the versions that a value was written at rev; by
	// default the revision of its id.
	note func(v *Versions, val T, rev int64)
	// removed, when set, records what a removed or changed value was.
	removed func(w *saver, v T)
	// save, when set, writes the table instead of insert, update and
	// remove, once the tables before it are inserted and updated.
	save func(w *saver, before, after []T, children func(row int64, v *T) error) error
}

func (t table[T, R]) rowType() reflect.Type { return reflect.TypeFor[R]() }
func (t table[T, R]) orderBy() string       { return "id" }

func (t table[T, R]) children() []rowTable {
	out := make([]rowTable, len(t.kids))
	for i, c := range t.kids {
		out[i] = c
	}
	return out
}

func (t table[T, R]) list(s *engine.State) any { return t.slice(s) }

func (t table[T, R]) noteWritten(v *Versions, val T, rev int64) {
	if t.note != nil {
		t.note(v, val, rev)
		return
	}
	v.setRow(t.kind, *t.id(&val), rev)
}

func (t table[T, R]) load(rd rowReader, s *engine.State, v *Versions) error {
	if t.apart {
		return nil
	}
	// The children's lists are read first: the rows' done needs them.
	lists := make([]map[int64][]int64, len(t.kids))
	for i, c := range t.kids {
		if c.storedApart() {
			continue
		}
		if err := c.load(rd, &lists[i]); err != nil {
			return err
		}
	}
	var rows []R
	order := cmp.Or(t.loadOrder, t.orderBy())
	return rd.read(&rows, func(q *bun.SelectQuery, business any) *bun.SelectQuery {
		return q.Where("business_id = ?", business).OrderExpr(order)
	}, func() error {
		out := t.slice(s)
		for i := range rows {
			r := &rows[i]
			val := t.value(r)
			for k, c := range t.kids {
				if lists[k] != nil {
					c.attach(r, &val, lists[k][t.rowID(r)])
				}
			}
			*out = append(*out, val)
			t.noteWritten(v, val, any(r).(revisioned).revision())
		}
		return nil
	})
}

func (t table[T, R]) insert(w *saver, after *engine.State) error {
	if t.apart || t.save != nil {
		return nil
	}
	list := *t.slice(after)
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
	w.wrote = true
	if _, err := w.db.NewInsert().Model(&rows).Returning("id").Exec(w.ctx); err != nil {
		return fmt.Errorf("inserting %T: %w", rows[0], err)
	}
	found := make(map[int64]int64, len(rows))
	fresh := make(map[int64]bool, len(rows))
	for i := range rows {
		id := t.rowID(&rows[i])
		found[temp[i]], w.ids[temp[i]], fresh[id] = id, id, true
	}
	w.remapTemporary(after, found)
	for _, v := range *t.slice(after) {
		if id := *t.id(&v); fresh[id] {
			t.noteWritten(w.v, v, w.rev)
			if err := t.writeChildren(w, id, &v, true); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t table[T, R]) update(w *saver, before, after *engine.State) error {
	if t.apart {
		return nil
	}
	if t.save != nil {
		return t.save(w, *t.slice(before), *t.slice(after), func(row int64, v *T) error { return t.writeChildren(w, row, v, true) })
	}
	edited, _ := rowDiff(*t.slice(before), *t.slice(after), t.id)
	if len(edited) > 0 {
		w.wrote = true
	}
	for _, e := range edited {
		prev, v := e.was, *e.is
		r := t.row(w.b, v)
		any(&r).(revisioned).setRevision(w.rev)
		if _, err := w.db.NewUpdate().Model(&r).WherePK().Where("business_id = ?", w.b).Exec(w.ctx); err != nil {
			return fmt.Errorf("updating %T: %w", r, err)
		}
		t.noteWritten(w.v, v, w.rev)
		if t.removed != nil {
			t.removed(w, *prev) // what it was no longer is
		}
		if err := t.writeChildren(w, *t.id(&v), &v, false); err != nil {
			return err
		}
	}
	return nil
}

func (t table[T, R]) remove(w *saver, before, after *engine.State) error {
	if t.apart || t.save != nil {
		return nil
	}
	_, removed := rowDiff(*t.slice(before), *t.slice(after), t.id)
	var gone []int64
	for _, v := range removed {
		gone = append(gone, *t.id(v))
		if t.removed != nil {
			t.removed(w, *v)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	w.wrote = true
	if _, err := w.db.NewDelete().Model((*R)(nil)).Where("business_id = ?", w.b).Where("id IN (?)", bun.In(gone)).Exec(w.ctx); err != nil {
		return fmt.Errorf("deleting %T: %w", (*R)(nil), err)
	}
	return nil
}

// writeChildren writes the lists of a value whose row has the id parent;
// fresh means the row is new, with no children to delete first.
func (t table[T, R]) writeChildren(w *saver, parent int64, v *T, fresh bool) error {
	for _, c := range t.kids {
		if c.storedApart() {
			continue
		}
		if err := c.write(w, parent, v, fresh); err != nil {
			return err
		}
	}
	return nil
}

func (t table[T, R]) remap(s *engine.State, f func(Table, int64) int64) {
	t.remapRows(s, nil, f)
}

func (t table[T, R]) temporary(s *engine.State) []int {
	var rows []int
	l := *t.slice(s)
	// One closure for every row: made in the loop, it and the flag it
	// sets were allocated for each of a large business's many rows.
	temp := false
	mark := func(_ Table, p *int64) { temp = temp || *p < 0 }
	for i := range l {
		temp = false
		t.refsOf(&l[i], mark)
		if temp {
			rows = append(rows, i)
		}
	}
	return rows
}

// refsOf calls ref with the value's own id and every id it holds.
func (t table[T, R]) refsOf(v *T, ref func(Table, *int64)) {
	if t.id != nil {
		ref(t.kind, t.id(v))
	}
	if t.refs != nil {
		t.refs(v, ref)
	}
	for _, c := range t.kids {
		c.remap(v, ref)
	}
}

// remapRows is remap on the rows of s at the indexes rows, or on every row
// when rows is nil.
func (t table[T, R]) remapRows(s *engine.State, rows []int, f func(Table, int64) int64) {
	ref := func(k Table, p *int64) {
		if *p != 0 {
			*p = f(k, *p)
		}
	}
	l := *t.slice(s)
	if rows != nil {
		for _, i := range rows {
			t.refsOf(&l[i], ref)
		}
		return
	}
	for i := range l {
		t.refsOf(&l[i], ref)
	}
}

func (t table[T, R]) dropApart(s *engine.State) {
	if t.apart {
		*t.slice(s) = nil
		return
	}
	l := *t.slice(s)
	for _, c := range t.kids {
		if c.storedApart() {
			for i := range l {
				c.drop(&l[i])
			}
		}
	}
}

// childTable is a table whose rows hold a list of the values of table[T, R].
type childTable[T, R any] interface {
	rowTable
	storedApart() bool
	// load reads the lists of rd's business into *lists, by the id of
	// their parent row.
	load(rd rowReader, lists *map[int64][]int64) error
	// attach gives the value of row r its list.
	attach(r *R, v *T, ids []int64)
	write(w *saver, parent int64, v *T, fresh bool) error
	remap(v *T, ref func(Table, *int64))
	drop(v *T)
}

// idList is a child table whose rows (type C) each hold one id of a
// value's list, with the parent row's id in column.
type idList[T, R, C any] struct {
	column string
	order  string
	kind   Table // what the ids are
	list   func(*T) *[]int64
	row    func(b, parent int64, i int, id int64) C
	of     func(*C) (parent, id int64)
	// when, if set, says whether a row has the list at all.
	when func(*R) bool
	// set: the list is a set, kept in ascending order.
	set bool
	// apart: stored outside the schedule snapshot, like the clients.
	apart bool
}

func (c idList[T, R, C]) rowType() reflect.Type { return reflect.TypeFor[C]() }
func (c idList[T, R, C]) orderBy() string       { return c.order }
func (c idList[T, R, C]) storedApart() bool     { return c.apart }

func (c idList[T, R, C]) load(rd rowReader, lists *map[int64][]int64) error {
	var rows []C
	return rd.read(&rows, func(q *bun.SelectQuery, business any) *bun.SelectQuery {
		return q.Where("business_id = ?", business).OrderExpr(c.order)
	}, func() error {
		out := map[int64][]int64{}
		for i := range rows {
			parent, id := c.of(&rows[i])
			out[parent] = append(out[parent], id)
		}
		*lists = out
		return nil
	})
}

func (c idList[T, R, C]) attach(r *R, v *T, ids []int64) {
	if c.when == nil || c.when(r) {
		*c.list(v) = ids
	}
}

func (c idList[T, R, C]) write(w *saver, parent int64, v *T, fresh bool) error {
	if !fresh {
		if _, err := w.db.NewDelete().Model((*C)(nil)).Where("business_id = ?", w.b).Where("? = ?", bun.Ident(c.column), parent).Exec(w.ctx); err != nil {
			return fmt.Errorf("replacing %T: %w", (*C)(nil), err)
		}
	}
	ids := *c.list(v)
	if len(ids) == 0 {
		return nil
	}
	rows := make([]C, len(ids))
	for i, id := range ids {
		rows[i] = c.row(w.b, parent, i, id)
	}
	if _, err := w.db.NewInsert().Model(&rows).Exec(w.ctx); err != nil {
		return fmt.Errorf("inserting %T: %w", &rows, err)
	}
	return nil
}

func (c idList[T, R, C]) remap(v *T, ref func(Table, *int64)) {
	l := *c.list(v)
	for i := range l {
		ref(c.kind, &l[i])
	}
	if c.set {
		slices.Sort(l)
	}
}

func (c idList[T, R, C]) drop(v *T) { *c.list(v) = nil }

// pastTable is a table of what has happened (bookings, the clashes a
// business brought with it): no part of the engine's state, written by its
// own queries, but the business's data that backups hold.
type pastTable[R any] struct{ order string }

func (t pastTable[R]) rowType() reflect.Type  { return reflect.TypeFor[R]() }
func (t pastTable[R]) orderBy() string        { return t.order }
func (t pastTable[R]) children() []rowTable   { return nil }
func (t pastTable[R]) list(*engine.State) any { return nil }
func (t pastTable[R]) load(rowReader, *engine.State, *Versions) error {
	return nil
}
func (t pastTable[R]) insert(*saver, *engine.State) error                       { return nil }
func (t pastTable[R]) update(*saver, *engine.State, *engine.State) error        { return nil }
func (t pastTable[R]) remove(*saver, *engine.State, *engine.State) error        { return nil }
func (t pastTable[R]) remap(*engine.State, func(Table, int64) int64)            {}
func (t pastTable[R]) temporary(*engine.State) []int                            { return nil }
func (t pastTable[R]) remapRows(*engine.State, []int, func(Table, int64) int64) {}
func (t pastTable[R]) dropApart(*engine.State)                                  {}
