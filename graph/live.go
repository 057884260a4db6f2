package graph

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// scheduleChanges streams the changes of the request's business from now
// until the client goes away. A client that reads slowly is never queued
// for: the store merges what it has not read into one change.
func (r *Resolver) scheduleChanges(ctx context.Context) (<-chan *model.ScheduleChange, error) {
	if err := can(ctx, models.Read); err != nil {
		return nil, err
	}
	in, cancel := r.Store.Subscribe(principal(ctx).BusinessID)
	out := make(chan *model.ScheduleChange, 1)
	go func() {
		defer close(out)
		defer cancel()
		for {
			select {
			case <-ctx.Done():
				return
			case c := <-in:
				select {
				case out <- scheduleChange(c):
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

func scheduleChange(c models.Change) *model.ScheduleChange {
	sc := &model.ScheduleChange{Revision: int(c.Revision), From: c.From}
	if !c.Open {
		to := c.To
		sc.To = &to
	}
	return sc
}

// checkOrigin decides whether a websocket may be opened from a browser
// page. Browsers send cookies and other credentials with any websocket,
// so another site's page must not open one: it is let in only from this
// server's own pages or an origin in AllowedOrigins. A request without an
// Origin is not from a browser (a server-side client) and is let in.
func (r *Resolver) checkOrigin(req *http.Request) bool {
	origin := req.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if u, err := url.Parse(origin); err == nil && strings.EqualFold(u.Host, req.Host) {
		return true
	}
	return slices.ContainsFunc(r.AllowedOrigins, func(o string) bool {
		return strings.EqualFold(strings.TrimSuffix(o, "/"), origin)
	})
}

var errOrigin = &apiError{code: "FORBIDDEN", message: "Pages from this origin may not open a websocket to the API: add the origin to --allowed-origins"}
