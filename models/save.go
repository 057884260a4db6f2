package models

import (
	"context"
	"fmt"
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
// versions of after. changed reports whether anything was written: an
// after equal to before writes nothing.
func SaveState(ctx context.Context, db bun.IDB, b *Business, before engine.State, after *engine.State, rev int64, v *Versions) (ids map[int64]int64, changed bool, err error) {
	w := &saver{ctx: ctx, db: db, b: b.ID, ids: map[int64]int64{}, rev: rev, v: v}
	if !sameSettings(before.Business, after.Business) {
		w.wrote = true
		row := *b
		row.SetSettings(after.Business)
		row.SettingsRevision = rev
		if _, err := db.NewUpdate().Model(&row).Column("name", "kind", "currency", "time_zone", "week_start", "language", "first_day", "clock", "digits", "settings_revision").WherePK().Exec(ctx); err != nil {
			return nil, false, fmt.Errorf("saving the business settings: %w", err)
		}
		*b = row
		v.Settings = rev
	}
	// Inserts go in the order of references, and each table's new ids are
	// written into after before the next table, so every row refers to real
	// rows when it is inserted. Only the rows holding a temporary id are
	// rewritten: they are found once, not walked for each table inserted.
	w.temp = make([][]int, len(tables))
	for i, t := range tables {
		w.temp[i] = t.temporary(after)
	}
	for _, t := range tables {
		if err := t.insert(w, after); err != nil {
			return nil, false, err
		}
	}
	canonical(after)
	for _, t := range tables {
		if err := t.update(w, &before, after); err != nil {
			return nil, false, err
		}
	}
	// Deletes go last, from the tables that refer to others to the ones they
	// refer to.
	for i := len(tables) - 1; i >= 0; i-- {
		if err := tables[i].remove(w, &before, after); err != nil {
			return nil, false, err
		}
	}
	if err := w.flushTombstones(); err != nil {
		return nil, false, err
	}
	v.prepare()
	return w.ids, w.wrote, nil
}

func sameSettings(a, b engine.Business) bool {
	return a.Kind == b.Kind && a.Name == b.Name && a.Currency == b.Currency && a.WeekStart == b.WeekStart && a.Locale == b.Locale &&
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
	temp   [][]int // by table, the rows of after holding a temporary id
	wrote  bool    // a row was inserted, updated or deleted
}

// remapTemporary rewrites the temporary ids of after through m, in the
// rows that hold them.
func (w *saver) remapTemporary(after *engine.State, m map[int64]int64) {
	f := func(_ Table, id int64) int64 {
		if v, ok := m[id]; ok {
			return v
		}
		return id
	}
	for i, t := range tables {
		if rows := w.temp[i]; len(rows) > 0 {
			t.remapRows(after, rows, f)
		}
	}
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
type revisioned interface {
	setRevision(int64)
	revision() int64
}

// changes writes day changes, which are known by the session they change
// rather than by an id; children writes the lists of a new row.
func (w *saver) changes(before, after []engine.DayChange, children func(row int64, c *engine.DayChange) error) error {
	written, removed := keyedDiff(before, after, func(c *engine.DayChange) engine.SessionRef { return c.Ref })
	if len(written)+len(removed) > 0 {
		w.wrote = true
	}
	for _, e := range written {
		c := e.is
		if e.was != nil {
			if err := w.deleteChange(c.Ref); err != nil {
				return err
			}
		}
		row := changeRow(w.b, *c)
		row.Revision = w.rev
		w.v.changes[c.Ref] = w.rev
		if _, err := w.db.NewInsert().Model(&row).Returning("id").Exec(w.ctx); err != nil {
			return fmt.Errorf("saving a day change: %w", err)
		}
		if err := children(row.ID, c); err != nil {
			return err
		}
	}
	for _, c := range removed {
		if err := w.deleteChange(c.Ref); err != nil {
			return err
		}
		w.tombstone(Tombstone{Kind: "change", OrigDate: Day(c.Ref.Date), ClassTimeID: c.Ref.ClassTimeID, ClassID: c.Ref.ClassID})
	}
	return nil
}

// keyedDiff is rowDiff for rows known by a key of their own rather than an
// id (day changes, by the session they change): written holds the rows of
// after that are new (was nil) or edit a row of before, in after's order,
// removed the rows of before whose key after no longer holds, in before's
// order. Rows in the same places at the start and the end of both lists
// are compared there, so the cost is a comparison a row and a map entry
// only for the rows in between.
func keyedDiff[T any, K comparable](before, after []T, key func(*T) K) (written []rowEdit[T], removed []*T) {
	n := min(len(before), len(after))
	i := 0
	for ; i < n && key(&before[i]) == key(&after[i]); i++ {
		if !sameValue(&before[i], &after[i]) {
			written = append(written, rowEdit[T]{&before[i], &after[i]})
		}
	}
	bj, aj := len(before), len(after)
	var tail []rowEdit[T]
	for bj > i && aj > i && key(&before[bj-1]) == key(&after[aj-1]) {
		bj, aj = bj-1, aj-1
		if !sameValue(&before[bj], &after[aj]) {
			tail = append(tail, rowEdit[T]{&before[bj], &after[aj]})
		}
	}
	if i < bj || i < aj {
		was := make(map[K]*T, bj-i)
		for j := i; j < bj; j++ {
			was[key(&before[j])] = &before[j]
		}
		for j := i; j < aj; j++ {
			k := key(&after[j])
			old, ok := was[k]
			if ok {
				delete(was, k)
				if sameValue(old, &after[j]) {
					continue
				}
			}
			written = append(written, rowEdit[T]{old, &after[j]})
		}
		for j := i; j < bj; j++ {
			if old, ok := was[key(&before[j])]; ok && old == &before[j] {
				removed = append(removed, old)
			}
		}
	}
	slices.Reverse(tail)
	return append(written, tail...), removed
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
	for _, t := range tables {
		t.remap(s, f)
	}
}

// rowEdit is a row of a table edited between two revisions.
type rowEdit[T any] struct{ was, is *T }

// rowDiff returns the rows of after that edit a row of before with their
// id, in after's order, and the rows of before whose id after no longer
// holds, in before's order (rows new to after are neither: their ids are
// temporary until inserted). Rows in the same places at the start and at
// the end of both lists, as a copy edited in place and saved in id order
// has them, are compared there, so the cost is a comparison a row and a
// map entry for each row in between, not a map of the whole table.
func rowDiff[T any](before, after []T, id func(*T) *int64) (edited []rowEdit[T], removed []*T) {
	n := min(len(before), len(after))
	i := 0
	for ; i < n && *id(&before[i]) == *id(&after[i]); i++ {
		if !sameValue(&before[i], &after[i]) {
			edited = append(edited, rowEdit[T]{&before[i], &after[i]})
		}
	}
	bj, aj := len(before), len(after)
	var tail []rowEdit[T]
	for bj > i && aj > i && *id(&before[bj-1]) == *id(&after[aj-1]) {
		bj, aj = bj-1, aj-1
		if !sameValue(&before[bj], &after[aj]) {
			tail = append(tail, rowEdit[T]{&before[bj], &after[aj]})
		}
	}
	if i < bj || i < aj {
		was := make(map[int64]*T, bj-i)
		for j := i; j < bj; j++ {
			was[*id(&before[j])] = &before[j]
		}
		for j := i; j < aj; j++ {
			k := *id(&after[j])
			if old, ok := was[k]; ok {
				delete(was, k)
				if !sameValue(old, &after[j]) {
					edited = append(edited, rowEdit[T]{old, &after[j]})
				}
			}
		}
		for j := i; j < bj; j++ {
			if old, ok := was[*id(&before[j])]; ok && old == &before[j] {
				removed = append(removed, old)
			}
		}
	}
	slices.Reverse(tail)
	return append(edited, tail...), removed
}

// sameValue reports whether two values of a schedule table are equal in
// every field, as reflect.DeepEqual says, without reflection.
func sameValue[T any](a, b *T) bool { return engine.SameRow(a, b) }
