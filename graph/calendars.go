package graph

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/koredyne/schedule/caldav/icalendar"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/locale"
)

// errImportTooLarge answers importCalendar for a file that would take more
// memory to read than the server lets one request hold (--request-mb):
// the command line's import has no such bound.
var errImportTooLarge = &apiError{code: "REQUEST_TOO_LARGE", message: "The calendar file would take more memory to read than this server lets one request hold: import it in parts, or with the command line's koredyne import ics"}

// baseURL is where the server is reached, for the URLs the API hands out:
// the configured public URL, else what the request came to.
func (r *Resolver) baseURL(req *http.Request) string {
	if r.PublicURL != "" {
		return strings.TrimSuffix(r.PublicURL, "/")
	}
	scheme := "http"
	if req.TLS != nil || strings.EqualFold(req.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + req.Host
}

// feedURL is the secret URL of a calendar of the request's business, or
// nil on a playground, whose copies no URL outside the API finds. Feed
// tokens change outside the guarded write, so the answer is not cached.
func (r *Resolver) feedURL(ctx context.Context, calendar string) (*string, error) {
	if r.IsPlayground {
		return nil, nil
	}
	noCache(ctx)
	token, err := models.Feed(ctx, r.Store.DB, principal(ctx).BusinessID, calendar)
	if err != nil {
		return nil, err
	}
	u := r.secretURL(ctx, calendar, token)
	return &u, nil
}

// secretURL is the URL a feed token opens: the public timetable page, or
// a calendar's .ics feed, where the server mounts them.
func (r *Resolver) secretURL(ctx context.Context, calendar, token string) string {
	if calendar == models.TimetablePage {
		return requestFrom(ctx).base + r.PagePath + token
	}
	return requestFrom(ctx).base + r.FeedPath + token + ".ics"
}

// rotateFeed gives a calendar of the request's business a new secret URL.
func (r *Resolver) rotateFeed(ctx context.Context, calendar string, dryRun *bool) (*model.FeedPayload, error) {
	if err := can(ctx, models.EditSchedule); err != nil {
		return nil, err
	}
	if r.IsPlayground {
		return nil, errNotServed
	}
	var token string
	res, err := r.aside(ctx, models.EditSchedule, dryRun, func(db models.IDB, dry bool) (err error) {
		token, err = models.RotateFeed(ctx, db, principal(ctx).BusinessID, calendar)
		return err
	})
	if err != nil {
		return nil, err
	}
	p := &model.FeedPayload{DryRun: res.DryRun, Revision: int(res.Revision)}
	if !res.DryRun {
		u := r.secretURL(ctx, calendar, token)
		p.URL = &u
	}
	return p, nil
}

// calendarOf names the calendar an input picks, checking that its staff
// member or room exists.
func (r *Resolver) calendarOf(ctx context.Context, in model.CalendarInput) (string, error) {
	switch {
	case in.StaffID != nil && in.RoomID != nil:
		return "", badInput("calendar", "Pick a staff member or a room, not both")
	case in.StaffID != nil:
		if _, err := r.staffMember(ctx, *in.StaffID); err != nil {
			return "", namedBy("staffId", err)
		}
		return models.CalendarOf("staff", *in.StaffID), nil
	case in.RoomID != nil:
		if _, err := r.room(ctx, *in.RoomID); err != nil {
			return "", namedBy("roomId", err)
		}
		return models.CalendarOf("room", *in.RoomID), nil
	}
	return models.CalendarOf("", 0), nil
}

// exportOptions are how calendarExport writes the business's calendar: its
// events' descriptions in the business's language, as its CalDAV feeds
// write them.
func exportOptions(sn *models.Snapshot, stamp time.Time, stop func() bool) icalendar.ExportOptions {
	b := sn.State.Business
	l := locale.ForBusiness(b, "")
	staff := l.Words(b.Kind).Staff
	return icalendar.ExportOptions{Domain: sn.Business.UIDDomain(), Stamp: stamp, Stop: stop,
		StaffLine: func(names []string) string { return l.StaffLine(staff, names) }, Language: l.EventLanguage()}
}
