package icalendar

import (
	"bytes"
	"context"
	"time"

	"github.com/koredyne/schedule/models"
)

// Imported is what ImportInto did: the import's counts and problems, and
// the guarded write's outcome (its revision, and on a dry run the clashes
// the import would add).
type Imported struct {
	*Result
	Write *models.Result
}

// Apply merges a calendar file into the schedule of a guarded write, so
// the import is checked under the write's lock like any other edit: one
// that would add a clash is refused whole.
func Apply(e *models.Edit, file []byte, opts ImportOptions) (*Result, error) {
	imp, err := Import(bytes.NewReader(file), e.State, opts)
	if err != nil {
		return nil, err
	}
	e.State = imp.State
	return imp, nil
}

// ImportInto reads a calendar file into business b's timetable through the
// guarded write (see Apply); a dry run only reports what it would do.
func ImportInto(ctx context.Context, store *models.Store, b int64, file []byte, opts ImportOptions, dryRun bool) (*Imported, error) {
	out := &Imported{}
	res, err := store.Write(ctx, b, dryRun, func(e *models.Edit) error {
		var err error
		out.Result, err = Apply(e, file, opts)
		return err
	})
	if err != nil {
		return nil, err
	}
	out.Write = res
	return out, nil
}

// ExportOf writes a business's timetable as an iCalendar file of
// recurring events, stamped now, its UIDs ending in the business's slug;
// it stops with engine.ErrStopped once ctx is done.
func ExportOf(ctx context.Context, sn *models.Snapshot, now time.Time) ([]byte, error) {
	return Export(sn.State, ExportOptions{
		Domain: sn.Business.Slug + ".koredyne",
		Stamp:  now.UTC().Truncate(time.Second),
		Stop:   models.Stop(ctx),
	})
}
