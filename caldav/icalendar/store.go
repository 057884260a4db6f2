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

// ImportInto reads an iCalendar file into business b's timetable through
// the guarded write: the file is merged into the schedule the write holds
// under its lock, so an import that would add a clash is refused whole (a
// *models.ClashError) and a dry run only reports what it would do.
func ImportInto(ctx context.Context, store *models.Store, b int64, file []byte, opts ImportOptions, dryRun bool) (*Imported, error) {
	out := &Imported{}
	res, err := store.Write(ctx, b, dryRun, func(e *models.Edit) error {
		imp, err := Import(bytes.NewReader(file), e.State, opts)
		if err != nil {
			return err
		}
		out.Result, e.State = imp, imp.State
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Write = res
	return out, nil
}

// ExportOf writes business b's timetable as of now as an iCalendar file of
// recurring events, its UIDs ending in the business's slug.
func ExportOf(ctx context.Context, store *models.Store, b int64) ([]byte, error) {
	sn, err := store.Snapshot(ctx, b, -1)
	if err != nil {
		return nil, err
	}
	return Export(sn.State, ExportOptions{
		Domain: sn.Business.Slug + ".koredyne",
		Stamp:  store.Now().UTC().Truncate(time.Second),
	})
}
