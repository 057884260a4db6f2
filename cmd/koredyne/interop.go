package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/koredyne/schedule/caldav/icalendar"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/reference"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/locale"
)

// export writes a business's data: json is a backup of everything, ics
// the timetable as recurring calendar events.
func export(ctx context.Context, c *Config, cmd *cli.Command, stdout io.Writer) error {
	if err := args(cmd, 0, ""); err != nil {
		return err
	}
	slug, out := cmd.String("business"), cmd.String("out")
	db, err := c.open(ctx, false)
	if err != nil {
		return err
	}
	defer db.Close()
	b, err := models.BusinessBySlug(ctx, db, slug)
	if err != nil {
		return err
	}
	var data []byte
	switch cmd.Name {
	case "json":
		data, err = models.ExportBackup(ctx, db, b)
	case "ics":
		var sn *models.Snapshot
		if sn, err = models.NewStore(db, time.Now).Snapshot(ctx, b.ID, -1); err == nil {
			l := locale.ForBusiness(sn.State.Business, "")
			staff := l.Words(sn.State.Business.Kind).Staff
			data, err = icalendar.Export(sn.State, icalendar.ExportOptions{Domain: sn.Business.UIDDomain(), Stamp: time.Now(), Stop: models.Stop(ctx),
				// in the business's language, as its CalDAV feeds
				StaffLine: func(names []string) string { return l.StaffLine(staff, names) }, Language: l.EventLanguage()})
		}
	}
	if err != nil {
		return err
	}
	if out == "" {
		_, err = stdout.Write(data)
		return err
	}
	return os.WriteFile(out, data, 0o600)
}

// importFile reads the one file an import command names, and opens the
// database, which must exist.
func importFile(ctx context.Context, c *Config, cmd *cli.Command) ([]byte, *models.Store, error) {
	if err := args(cmd, 1, "a file"); err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(cmd.Args().First())
	if err != nil {
		return nil, nil, err
	}
	db, err := c.open(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	return data, models.NewStore(db, time.Now), nil
}

// importJSON restores a backup: under its own name and ids, or with
// --business under a new name with new ids, beside the original.
func importJSON(ctx context.Context, c *Config, cmd *cli.Command, stdout io.Writer) error {
	data, store, err := importFile(ctx, c, cmd)
	if err != nil {
		return err
	}
	defer store.DB.Close()
	b, err := models.RestoreBackup(ctx, store.DB, data, cmd.String("business"), store.Now().Unix())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored business %q\n", b.Slug)
	return nil
}

// importKoredyne moves a business over from the reference system.
func importKoredyne(ctx context.Context, c *Config, cmd *cli.Command, stdout io.Writer) error {
	data, store, err := importFile(ctx, c, cmd)
	if err != nil {
		return err
	}
	defer store.DB.Close()
	return importReference(ctx, store, data, cmd.String("business"), cmd.String("time-zone"),
		cmd.Bool("create"), cmd.Bool("replace"), cmd.Bool("dry-run"), cmd.Bool("strict"), stdout)
}

// importICS adds the events of a calendar file to a business's timetable.
func importICS(ctx context.Context, c *Config, cmd *cli.Command, stdout, stderr io.Writer) error {
	opts := icalendar.ImportOptions{DefaultStaff: cmd.String("default-staff"), DefaultRoom: cmd.String("default-room")}
	if v := cmd.String("expand-until"); v != "" {
		var err error
		if opts.ExpandUntil, err = engine.ParseDate(v); err != nil {
			return usageError("--expand-until: %v", err)
		}
	}
	data, store, err := importFile(ctx, c, cmd)
	if err != nil {
		return err
	}
	defer store.DB.Close()
	return importCalendar(ctx, store, data, cmd.String("business"), opts, cmd.Bool("dry-run"), stdout, stderr)
}

// importCalendar adds a calendar file's events to a business through the
// guarded write, with a progress line on stderr for large files and every
// event it could not import reported by its line.
func importCalendar(ctx context.Context, store *models.Store, data []byte, slug string, opts icalendar.ImportOptions, dryRun bool, stdout, stderr io.Writer) error {
	b, err := models.BusinessBySlug(ctx, store.DB, slug)
	if err != nil {
		return err
	}
	opts.Progress = func(done, total int) {
		if total >= 1000 {
			fmt.Fprintf(stderr, "\rreading events: %d of %d", done, total)
			if done == total {
				fmt.Fprintln(stderr)
			}
		}
	}
	var imp *icalendar.Result
	res, err := store.Write(ctx, b.ID, dryRun, func(e *models.Edit) error {
		var err error
		if imp, err = icalendar.Import(bytes.NewReader(data), e.State, opts); err == nil {
			e.State = imp.State
		}
		return err
	})
	if err != nil {
		return err
	}
	verb := "imported"
	if dryRun {
		verb = "would import"
	}
	fmt.Fprintf(stdout, "%s %d events into %q: %d series, %d one-offs, %d day changes\n",
		verb, imp.Events, slug, imp.Series, imp.OneOffs, imp.Changes)
	for _, p := range imp.Problems {
		fmt.Fprintf(stdout, "not imported: %s\n", p)
	}
	for _, c := range res.Clashes {
		fmt.Fprintf(stdout, "clash, first %s: %s\n", c.First, c.Message)
	}
	return nil
}

// importReference moves a business over from the reference system's export:
// the whole timetable, its clients and subscriptions, through the guarded
// write. The export names no time zone: a new business takes zone (required
// with create), an existing one keeps its own. The double bookings the
// reference let through come along and are reported as pre-existing; with
// strict they refuse the import.
func importReference(ctx context.Context, store *models.Store, data []byte, slug, zone string, create, replace, dryRun, strict bool, out io.Writer) error {
	b, err := models.BusinessBySlug(ctx, store.DB, slug)
	missing := engine.ErrorCode(err) == engine.NotFound
	opts := reference.Options{Name: slug}
	switch {
	case missing && !create:
		return fmt.Errorf("there is no business %q: add --create (and --time-zone) to create it", slug)
	case err != nil && !missing:
		return err
	case missing && zone == "":
		return usageError("import koredyne --create needs --time-zone: the reference system's export names no time zone (for example --time-zone Europe/Berlin)")
	case missing:
		// Refused before anything is read, so that a dry run refuses the
		// name the real run would.
		if err := models.CheckSlug(slug); err != nil {
			return usageError("--business: %v", err)
		}
		if opts.Location, err = loadZone(zone); err != nil {
			return usageError("--time-zone: %v", err)
		}
		opts.WeekStart = time.Sunday // the reference's weeks
	default:
		cur, err := b.Settings()
		if err != nil {
			return err
		}
		if zone != "" && zone != cur.Location.String() {
			return usageError("business %q keeps its time zone %s; --time-zone applies only with --create", slug, cur.Location)
		}
		opts.Location, opts.WeekStart = cur.Location, cur.WeekStart
		if !replace {
			sn, err := store.Snapshot(ctx, b.ID, -1)
			if err != nil {
				return err
			}
			if !empty(sn.State) {
				return fmt.Errorf("business %q already has a timetable: add --replace to replace it with the import", slug)
			}
		}
	}
	imp, err := reference.Read(bytes.NewReader(data), opts)
	var bad *reference.Error
	if errors.As(err, &bad) {
		// One problem a line, the alike counted past the first few.
		return fmt.Errorf("the export cannot be imported (%d problems):\n  %s", len(bad.Problems), strings.Join(bad.Lines(), "\n  "))
	}
	if err != nil {
		return err
	}
	for _, n := range imp.Notes {
		fmt.Fprintf(out, "note: %s\n", n)
	}
	var clashes []engine.Clash
	st := imp.State
	if missing && dryRun {
		// Into a new business, the write would find every clash new:
		// check the schedule as the write would, without the business.
		if err := engine.Validate(st); err != nil {
			return err
		}
		tt, err := engine.New(st)
		if err != nil {
			return err
		}
		clashes = tt.Clashes(engine.DateOf(store.Now().In(st.Business.Location))).Clashes
	} else {
		if missing {
			if b, err = models.CreateBusiness(ctx, store.DB, slug, st.Business); err != nil {
				return err
			}
		}
		res, err := store.Write(ctx, b.ID, dryRun, func(e *models.Edit) error {
			e.AcceptClashes = !strict
			e.ReplaceSchedule(st)
			return nil
		})
		if err != nil {
			if missing {
				// Nothing was written into it: take the new business back.
				if undo := models.TakeBackBusiness(ctx, store.DB, b.ID); undo != nil {
					return errors.Join(err, undo)
				}
			}
			return err
		}
		clashes = res.Clashes
	}
	if strict && len(clashes) > 0 {
		return &models.ClashError{Clashes: clashes}
	}
	verb := "imported"
	if dryRun {
		verb = "would import"
	}
	fmt.Fprintf(out, "%s %d rooms, %d staff, %d activities, %d classes, %d class times, %d series, %d plans, %d clients, %d subscriptions, %d one-offs, %d day changes into %q\n",
		verb, len(st.Rooms), len(st.Staff), len(st.Activities), len(st.Classes), len(st.ClassTimes), len(st.Series), len(st.Plans),
		len(st.Clients), len(st.Subscriptions), len(st.OneOffs), len(st.Changes), slug)
	for _, c := range clashes {
		fmt.Fprintf(out, "pre-existing clash, first %s: %s\n", c.First, c.Message)
	}
	return nil
}

func empty(s engine.State) bool {
	return len(s.Rooms) == 0 && len(s.Staff) == 0 && len(s.Activities) == 0 && len(s.Series) == 0 && len(s.OneOffs) == 0
}

// loadZone loads an IANA time zone, refusing the machine's own.
func loadZone(name string) (*time.Location, error) {
	if name == "Local" {
		return nil, errors.New(`"Local" is the machine's zone; give an IANA time zone such as Europe/Berlin`)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%q is not a known IANA time zone (such as Europe/Berlin)", name)
	}
	return loc, nil
}
