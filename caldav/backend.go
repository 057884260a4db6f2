package caldav

import (
	"context"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

// Backend is what the gateway asks of the storage behind it, declared here
// where it is used (as go-webdav's caldav.Backend is): *models.Store
// satisfies it, and tests may serve the protocol from memory.
type Backend interface {
	// AuthenticateCalendar checks an HTTP Basic login: the business slug
	// or a staff login, with an API token or an app password. Unknown or
	// revoked credentials are models.ErrBadToken.
	AuthenticateCalendar(ctx context.Context, login, password string) (models.CalendarUser, error)
	// FeedByToken finds the calendar the secret of an .ics URL opens; an
	// unknown token is models.ErrBadToken.
	FeedByToken(ctx context.Context, token string) (*models.FeedToken, error)
	// Snapshot is a business's schedule at a revision (-1: the newest).
	Snapshot(ctx context.Context, business, revision int64) (*models.Snapshot, error)
	// SaveSync keeps what a calendar held when a sync token was handed
	// out (href → ETag); LoadSync gives it back, or false once the token
	// is unknown or expired.
	SaveSync(ctx context.Context, business int64, calendar, token string, items map[string]string) error
	LoadSync(ctx context.Context, business int64, calendar, token string) (map[string]string, bool, error)
	// Now is the clock that "today" is read from.
	Now() time.Time
}

var _ Backend = (*models.Store)(nil)

// changeLog is what a backend may also know of its writes: whether the
// dates from..to (exclusive) of a business show the same at revision now
// as at revision since. With it the rendering of a revision carries over
// the dates a write left alone; without it every revision renders afresh.
type changeLog interface {
	Unchanged(business, since, now int64, from, to engine.Date) bool
}

var _ changeLog = (*models.Store)(nil)

// Observer hears what the gateway learns of a request, for the server's
// rate limit: whether its credentials (a login or a feed token) were
// good, and the work it costs beyond the request itself: a unit per three
// months of a time range the client chose, and per bytesPerUnit it writes
// (a multiget of ten events is a hundredth of a unit, a year of the gym's
// whole calendar ten: four for its dates, six for its data). Its methods
// are called concurrently.
type Observer interface {
	Checked(ctx context.Context, good bool)
	Work(ctx context.Context, units float64)
}

// bytesPerUnit is how many bytes of answer cost a unit of work: a
// megabyte of calendar data takes 2 to 3 ms of a core to write and
// compress (a year of the gym's whole calendar, 5.8 MB, takes 15 ms;
// BenchmarkRequestKinds). It is counted on the plain bytes, whether they
// go out gzipped or not and were written now or kept, so that a request
// costs the same every time.
const bytesPerUnit = 1 << 20

// checked and work tell the Observer, when there is one.
func (h *Handler) checked(ctx context.Context, good bool) {
	if h.Observer != nil {
		h.Observer.Checked(ctx, good)
	}
}

func (h *Handler) work(ctx context.Context, units float64) {
	if h.Observer != nil && units > 0 {
		h.Observer.Work(ctx, units)
	}
}

// wrote tells the Observer the work of writing n bytes of answer.
func (h *Handler) wrote(ctx context.Context, n int) {
	h.work(ctx, float64(n)/bytesPerUnit)
}
