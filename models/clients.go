package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// ClientsByID reads clients of a business by id.
func ClientsByID(ctx context.Context, db bun.IDB, business int64, ids []int64) (map[int64]engine.Client, error) {
	var rows []Client
	if err := db.NewSelect().Model(&rows).Where("business_id = ?", business).Where("id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("reading clients: %w", err)
	}
	out := make(map[int64]engine.Client, len(rows))
	for i := range rows {
		out[rows[i].ID] = rows[i].Engine()
	}
	return out, nil
}

// SearchClients lists the clients of a business whose name, email or phone
// contains search (without case), by name; an empty search lists all.
func SearchClients(ctx context.Context, db bun.IDB, business int64, search string) ([]engine.Client, error) {
	if err := engine.SearchText.Check("search", "The search", search); err != nil {
		return nil, err
	}
	var rows []Client
	q := db.NewSelect().Model(&rows).Where("business_id = ?", business).OrderExpr("lower(name), id")
	if search = strings.TrimSpace(search); search != "" {
		like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(strings.ToLower(search)) + "%"
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where(`lower(name) LIKE ? ESCAPE '\'`, like).
				WhereOr(`lower(email) LIKE ? ESCAPE '\'`, like).
				WhereOr(`phone LIKE ? ESCAPE '\'`, like)
		})
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("searching clients: %w", err)
	}
	out := make([]engine.Client, len(rows))
	for i := range rows {
		out[i] = rows[i].Engine()
	}
	return out, nil
}

// SubscriptionsOf reads the subscriptions of a business whose column
// ("id", "client_id" or "series_id") is one of ids, grouped by it. With no
// column, every subscription is returned under key 0.
func SubscriptionsOf(ctx context.Context, db bun.IDB, business int64, column string, ids []int64) (map[int64][]engine.Subscription, error) {
	var rows []Subscription
	q := db.NewSelect().Model(&rows).Where("business_id = ?", business).OrderExpr("start_date, id")
	if column != "" {
		q = q.Where("? IN (?)", bun.Ident(column), bun.In(ids))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("reading subscriptions: %w", err)
	}
	out := make(map[int64][]engine.Subscription)
	for i := range rows {
		key := int64(0)
		switch column {
		case "id":
			key = rows[i].ID
		case "client_id":
			key = rows[i].ClientID
		case "series_id":
			key = rows[i].SeriesID
		}
		out[key] = append(out[key], rows[i].Engine())
	}
	return out, nil
}

// OneOffClients reads the clients booked into one-offs, by one-off.
func OneOffClients(ctx context.Context, db bun.IDB, business int64, oneOffs []int64) (map[int64][]engine.Client, error) {
	var rows []struct {
		OneOffID int64
		Client
	}
	err := db.NewSelect().TableExpr("one_off_clients AS oc").
		Join("JOIN clients AS c ON c.id = oc.client_id AND c.business_id = oc.business_id").
		ColumnExpr("oc.one_off_id, c.id, c.business_id, c.name, c.email, c.phone").
		Where("oc.business_id = ?", business).Where("oc.one_off_id IN (?)", bun.In(oneOffs)).
		OrderExpr("lower(c.name), c.id").Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("reading one-off clients: %w", err)
	}
	out := make(map[int64][]engine.Client)
	for _, r := range rows {
		out[r.OneOffID] = append(out[r.OneOffID], r.Client.Engine())
	}
	return out, nil
}

// The writes below change the tables outside the schedule inside a guarded
// write (e.Tx), checked with the engine's rules against the edited state.

// SaveClient inserts (id 0) or updates a client of the edited business.
func (e *Edit) SaveClient(ctx context.Context, c engine.Client) (engine.Client, error) {
	if err := engine.Validate(engine.State{Business: e.State.Business, Clients: []engine.Client{withID(c)}}); err != nil {
		return c, err
	}
	r := clientRow(e.Business.ID, c)
	row := &r
	if c.ID == 0 {
		if _, err := e.Tx.NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
			return c, fmt.Errorf("adding a client: %w", err)
		}
		e.changedApart = true
		e.noteClient(row.ID)
		row.ID = e.invented(row.ID)
		return row.Engine(), nil
	}
	if was, err := e.Client(ctx, c.ID); err != nil {
		return c, err
	} else if was == row.Engine() {
		return was, nil // as it is: nothing to write
	}
	if err := e.mustUpdate(e.Tx.NewUpdate().Model(row).WherePK().Where("business_id = ?", e.Business.ID).Exec(ctx)); err != nil {
		return c, e.missing(err, e.words().Client.One, c.ID)
	}
	e.changedApart = true
	e.know(row.Engine())
	return row.Engine(), nil
}

// withID gives a new row a placeholder id for validation.
func withID(c engine.Client) engine.Client {
	if c.ID == 0 {
		c.ID = -1
	}
	return c
}

// DeleteClient removes a client that has no subscriptions and is in no
// one-off.
func (e *Edit) DeleteClient(ctx context.Context, id int64) error {
	if _, err := e.Client(ctx, id); err != nil {
		return err
	}
	subs, err := e.Tx.NewSelect().Model((*Subscription)(nil)).Where("business_id = ?", e.Business.ID).Where("client_id = ?", id).Count(ctx)
	if err != nil {
		return err
	}
	booked, err := e.Tx.NewSelect().Model((*OneOffClient)(nil)).Where("business_id = ?", e.Business.ID).Where("client_id = ?", id).Count(ctx)
	if err != nil {
		return err
	}
	for _, r := range e.State.Standing {
		if r.ClientID == id {
			booked++ // a standing place is a booking of every date
		}
	}
	if subs+booked > 0 {
		return engine.Errorf(engine.InUse, "id", "Still in use — remove it where it is used first: this %s has %d memberships and %d one-offs or standing bookings",
			e.words().Client.One, subs, booked)
	}
	_, err = e.Tx.NewDelete().Model((*Client)(nil)).Where("business_id = ?", e.Business.ID).Where("id = ?", id).Exec(ctx)
	e.changedApart = true
	delete(e.clients, id)
	return err
}

// Client reads one client of the edited business, once a write: the
// write's events name the clients it read (Store.events) without reading
// them again.
func (e *Edit) Client(ctx context.Context, id int64) (engine.Client, error) {
	if c, ok := e.clients[id]; ok {
		return c, nil
	}
	found, err := ClientsByID(ctx, e.Tx, e.Business.ID, []int64{id})
	if err != nil {
		return engine.Client{}, err
	}
	c, ok := found[id]
	if !ok {
		return c, e.noClient(id)
	}
	e.know(c)
	return c, nil
}

func (e *Edit) noClient(id int64) error {
	return engine.Errorf(engine.NotFound, "clientId", "There is no %s with id %d", e.words().Client.One, id)
}

// know keeps a client the write read, as the write sees it.
func (e *Edit) know(c engine.Client) {
	if e.clients == nil {
		e.clients = map[int64]engine.Client{}
	}
	e.clients[c.ID] = c
}

// clientsByID is ClientsByID for the write: the clients it read already
// are not read again.
func (e *Edit) clientsByID(ctx context.Context, ids []int64) (map[int64]engine.Client, error) {
	out := make(map[int64]engine.Client, len(ids))
	var missing []int64
	for _, id := range ids {
		if c, ok := e.clients[id]; ok {
			out[id] = c
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	found, err := ClientsByID(ctx, e.Tx, e.Business.ID, missing)
	if err != nil {
		return nil, err
	}
	for id, c := range found {
		out[id] = c
	}
	return out, nil
}

// Subscription reads one subscription of the edited business.
func (e *Edit) Subscription(ctx context.Context, id int64) (engine.Subscription, error) {
	row := new(Subscription)
	err := e.Tx.NewSelect().Model(row).Where("business_id = ?", e.Business.ID).Where("id = ?", id).Scan(ctx)
	if err != nil {
		return engine.Subscription{}, e.missing(err, "subscription", id)
	}
	return row.Engine(), nil
}

// SaveSubscription inserts (id 0) or updates a subscription. A subscription
// through a plan with no end runs for the plan's months.
func (e *Edit) SaveSubscription(ctx context.Context, sub engine.Subscription) (engine.Subscription, error) {
	client, err := e.Client(ctx, sub.ClientID)
	if err != nil {
		return sub, err
	}
	if sub.End == 0 && sub.PlanID != 0 {
		for _, p := range e.State.Plans {
			if p.ID == sub.PlanID && sub.Start != 0 {
				sub.End = engine.Expiry(sub.Start, p.Months)
			}
		}
	}
	check := sub
	if check.ID == 0 {
		check.ID = -1
	}
	st := engine.State{Business: e.State.Business, Series: e.State.Series, Plans: e.State.Plans,
		Clients: []engine.Client{client}, Subscriptions: []engine.Subscription{check}}
	if err := engine.Validate(st); err != nil {
		return sub, err
	}
	r := subscriptionRow(e.Business.ID, sub)
	row := &r
	if sub.ID == 0 {
		if _, err := e.Tx.NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
			return sub, fmt.Errorf("adding a subscription: %w", err)
		}
		e.changedApart = true
		row.ID = e.invented(row.ID)
		return row.Engine(), nil
	}
	if was, err := e.Subscription(ctx, sub.ID); err != nil {
		return sub, err
	} else if was == row.Engine() {
		return was, nil // as it is: nothing to write
	}
	if err := e.mustUpdate(e.Tx.NewUpdate().Model(row).WherePK().Where("business_id = ?", e.Business.ID).Exec(ctx)); err != nil {
		return sub, e.missing(err, "subscription", sub.ID)
	}
	e.changedApart = true
	// A membership that ends sooner ends the standing places it held.
	return row.Engine(), e.FitStanding(ctx, sub.ClientID)
}

// DeleteSubscription removes a subscription.
func (e *Edit) DeleteSubscription(ctx context.Context, id int64) error {
	sub, err := e.Subscription(ctx, id)
	if err != nil {
		return err
	}
	if _, err := e.Tx.NewDelete().Model((*Subscription)(nil)).Where("business_id = ?", e.Business.ID).Where("id = ?", id).Exec(ctx); err != nil {
		return err
	}
	e.changedApart = true
	// The standing places it held end with it.
	return e.FitStanding(ctx, sub.ClientID)
}

// HasSubscriptions reports how many subscriptions a series has.
func (e *Edit) HasSubscriptions(ctx context.Context, series int64) (int64, error) {
	return e.Tx.NewSelect().Model((*Subscription)(nil)).Where("business_id = ?", e.Business.ID).Where("series_id = ?", series).Count(ctx)
}

// SetOneOffClients replaces the clients of a one-off, once the one-off is
// saved (its id may be temporary until then); the same clients again
// change nothing.
func (e *Edit) SetOneOffClients(oneOff int64, clients []int64) {
	b := e.Business.ID
	e.AfterSave(func(ctx context.Context, id func(int64) int64) error {
		o := id(oneOff)
		var had []int64
		if err := e.Tx.NewSelect().Model((*OneOffClient)(nil)).Column("client_id").Where("business_id = ?", b).Where("one_off_id = ?", o).
			Scan(ctx, &had); err != nil {
			return fmt.Errorf("reading the clients of a one-off: %w", err)
		}
		slices.Sort(had)
		if slices.Equal(had, slices.Sorted(slices.Values(clients))) {
			return nil
		}
		e.changedApart = true
		if _, err := e.Tx.NewDelete().Model((*OneOffClient)(nil)).Where("business_id = ?", b).Where("one_off_id = ?", o).Exec(ctx); err != nil {
			return err
		}
		for _, c := range clients {
			if _, err := e.Tx.NewInsert().Model(&OneOffClient{BusinessID: b, OneOffID: o, ClientID: c}).Exec(ctx); err != nil {
				return fmt.Errorf("adding a client to a one-off: %w", err)
			}
		}
		return nil
	})
}

func (e *Edit) words() engine.Vocabulary { return engine.Words(e.State.Business.Kind) }

// mustUpdate turns an update that matched no row into sql.ErrNoRows.
func (e *Edit) mustUpdate(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return sql.ErrNoRows
	}
	return nil
}

func (e *Edit) missing(err error, what string, id int64) error {
	if errors.Is(err, sql.ErrNoRows) {
		return engine.Errorf(engine.NotFound, "id", "There is no %s with id %d", what, id)
	}
	return err
}

// ClientCounts are the sizes of a business's client tables, which the
// schedule snapshot does not hold: for pricing queries before they run.
type ClientCounts struct {
	Clients, Subscriptions int
	// The most subscriptions of one client and of one series.
	PerClient, PerSeries int
}

// CountClients counts the clients and subscriptions of a business.
func CountClients(ctx context.Context, db bun.IDB, business int64) (ClientCounts, error) {
	var k ClientCounts
	n, err := db.NewSelect().Model((*Client)(nil)).Where("business_id = ?", business).Count(ctx)
	if err != nil {
		return k, fmt.Errorf("counting clients: %w", err)
	}
	k.Clients = int(n)
	most := func(column string) (int, error) {
		var out []int
		err := db.NewSelect().Model((*Subscription)(nil)).ColumnExpr("count(*)").Where("business_id = ?", business).
			GroupExpr("?", bun.Ident(column)).OrderExpr("count(*) DESC").Limit(1).Scan(ctx, &out)
		if len(out) == 0 {
			return 0, err
		}
		return out[0], err
	}
	if n, err = db.NewSelect().Model((*Subscription)(nil)).Where("business_id = ?", business).Count(ctx); err != nil {
		return k, fmt.Errorf("counting subscriptions: %w", err)
	}
	k.Subscriptions = int(n)
	if k.PerClient, err = most("client_id"); err != nil {
		return k, fmt.Errorf("counting subscriptions: %w", err)
	}
	if k.PerSeries, err = most("series_id"); err != nil {
		return k, fmt.Errorf("counting subscriptions: %w", err)
	}
	return k, nil
}
