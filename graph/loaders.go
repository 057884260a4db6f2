package graph

import (
	"context"
	"time"

	"github.com/vikstrous/dataloadgen"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

// loaders batch the reads that are not in the schedule snapshot — clients
// and subscriptions — so a list of N parents costs one query, not N. They
// live for one request.
type loaders struct {
	client          *dataloadgen.Loader[int64, engine.Client]
	clientSubs      *dataloadgen.Loader[int64, []engine.Subscription]
	seriesSubs      *dataloadgen.Loader[int64, []engine.Subscription]
	oneOffAttendees *dataloadgen.Loader[int64, []engine.Client]
	sessionBookings *dataloadgen.Loader[string, []models.SessionBooking]
}

func newLoaders(store *models.Store, business int64) *loaders {
	wait := dataloadgen.WithWait(time.Millisecond)
	db := store.DB
	return &loaders{
		client: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []int64) (map[int64]engine.Client, error) {
			return models.ClientsByID(ctx, db, business, ids)
		}, wait),
		clientSubs: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []int64) (map[int64][]engine.Subscription, error) {
			return orEmpty(models.SubscriptionsOf(ctx, db, business, "client_id", ids))(ids)
		}, wait),
		seriesSubs: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []int64) (map[int64][]engine.Subscription, error) {
			return orEmpty(models.SubscriptionsOf(ctx, db, business, "series_id", ids))(ids)
		}, wait),
		oneOffAttendees: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []int64) (map[int64][]engine.Client, error) {
			return orEmpty(models.OneOffClients(ctx, db, business, ids))(ids)
		}, wait),
		sessionBookings: dataloadgen.NewMappedLoader(func(ctx context.Context, keys []string) (map[string][]models.SessionBooking, error) {
			m, err := models.BookingsOf(ctx, db, business, keys)
			for _, k := range keys {
				if _, ok := m[k]; !ok && err == nil {
					m[k] = []models.SessionBooking{}
				}
			}
			return m, err
		}, wait),
	}
}

// orEmpty gives every key a value (an empty list) so that a parent with no
// children is not reported as missing.
func orEmpty[V any](m map[int64][]V, err error) func([]int64) (map[int64][]V, error) {
	return func(ids []int64) (map[int64][]V, error) {
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if _, ok := m[id]; !ok {
				m[id] = []V{}
			}
		}
		return m, nil
	}
}

func loadersFrom(ctx context.Context) *loaders {
	if req := requestFrom(ctx); req != nil {
		return req.loaders()
	}
	return nil
}
