package models

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// Change is a write that committed: the business's new revision and the
// dates whose sessions (or their bookings) may differ, From up to the
// exclusive To, or every date from From on when Open. From == To when the
// write changed no session (a new client, a plan's price).
type Change struct {
	Business, Revision int64
	From, To           engine.Date
	Open               bool
}

// include widens the change to hold the dates from..to (exclusive).
func (c *Change) include(from, to engine.Date) {
	switch {
	case from >= to:
	case c.From == c.To && !c.Open:
		c.From, c.To = from, to
	default:
		c.From, c.To = min(c.From, from), max(c.To, to)
	}
}

// merge folds a change a subscriber has not read yet into a newer one, so
// that the newer one still names every date either may have changed.
func merge(older, newer Change) Change {
	c := newer
	c.include(older.From, older.To)
	if older.Open {
		c.From, c.Open = min(c.From, older.From), true
	}
	if c.Open {
		c.To = 0
	}
	return c
}

// changeOf is what a write that commits changed.
func changeOf(e *Edit, step *engine.Step, revision int64, today engine.Date) Change {
	from, to, open := step.ChangedRange(today)
	c := Change{Business: e.Business.ID, Revision: revision, From: from, To: to, Open: open}
	for _, d := range e.touched {
		c.include(d, d+1)
	}
	if c.Open {
		c.To = 0
	}
	return c
}

// Touch records that the write changes what a date's sessions show without
// changing the schedule: a booking, a cancellation, attendance. Listeners
// hear the date in the write's Change.
func (e *Edit) Touch(d engine.Date) { e.touched = append(e.touched, d) }

// broadcaster hands every change to the subscribers of its business. It
// never waits for a subscriber: each holds at most one unread change, and
// a newer one is merged into it, so a slow reader sees the newest revision
// and every date since it last read. Each business's revision is delivered
// once, in order, however many ways it arrives (a write of this process,
// and its own notification heard back from PostgreSQL).
//
// Only businesses someone subscribes to are tracked: a change no one hears
// is dropped, and a business's last revision is forgotten with its last
// subscriber, so the broadcaster holds what its open connections need, not
// an entry for every business that ever wrote. (A subscriber may then be
// told of a revision committed just before it subscribed, as it may be of
// another process's, whose notification arrives late.)
type broadcaster struct {
	mu   sync.Mutex
	subs map[int64]map[chan Change]bool // by business
	last map[int64]int64                // newest revision delivered, by business subscribed to
	n    int                            // subscriptions open, over all businesses
}

func (b *broadcaster) subscribe(business int64) (<-chan Change, func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = make(map[int64]map[chan Change]bool)
	}
	if b.subs[business] == nil {
		b.subs[business] = make(map[chan Change]bool)
	}
	ch := make(chan Change, 1)
	b.subs[business][ch] = true
	b.n++
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			delete(b.subs[business], ch)
			b.n--
			if len(b.subs[business]) == 0 {
				delete(b.subs, business)
				delete(b.last, business)
			}
			close(ch)
		})
	}
}

func (b *broadcaster) publish(c Change) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.subs[c.Business]) == 0 {
		return
	}
	if b.last == nil {
		b.last = make(map[int64]int64)
	}
	if c.Revision <= b.last[c.Business] {
		return
	}
	b.last[c.Business] = c.Revision
	for ch := range b.subs[c.Business] {
		next := c
		select {
		case unread := <-ch:
			next = merge(unread, c)
		default:
		}
		ch <- next // cannot block: only publish sends, under the lock, into a drained buffer
	}
}

// watched returns the businesses someone subscribes to and the newest
// revision each has been told.
func (b *broadcaster) watched() map[int64]int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[int64]int64, len(b.subs))
	for id := range b.subs {
		out[id] = b.last[id]
	}
	return out
}

// Subscribe returns the changes of a business's schedule from now on, one
// per committed write (merged while the reader is behind), until cancel.
// On SQLite they are the writes of this process only; on PostgreSQL, once
// Listen runs, also those of every other process on the database.
func (s *Store) Subscribe(business int64) (<-chan Change, func()) {
	return s.changes.subscribe(business)
}

// Subscribers returns how many subscriptions to a business's changes are
// open: its live connections.
func (s *Store) Subscribers(business int64) int {
	s.changes.mu.Lock()
	defer s.changes.mu.Unlock()
	return len(s.changes.subs[business])
}

// Subscriptions returns how many subscriptions to changes are open, over
// every business.
func (s *Store) Subscriptions() int {
	s.changes.mu.Lock()
	defer s.changes.mu.Unlock()
	return s.changes.n
}

// notifyChannel is the PostgreSQL channel of changes.
const notifyChannel = "koredyne_changes"

// notice is a Change as it travels through NOTIFY. Schema tells databases
// apart that share one server and so one channel (the tests' schemas).
type notice struct {
	Schema   string `json:"schema"`
	Business int64  `json:"business"`
	Revision int64  `json:"revision"`
	From     Day    `json:"from"`
	To       Day    `json:"to"`
	Open     bool   `json:"open"`
	// Revoked, when set, is an API token revoked: not a change of the
	// schedule, but every process ends the connections opened with it.
	Revoked int64 `json:"revoked,omitempty"`
}

// announce tells the other processes on a PostgreSQL database about a
// change. It runs inside the write's transaction: PostgreSQL delivers the
// notification when, and only if, the write commits.
func announce(ctx context.Context, tx bun.Tx, c Change) error {
	if tx.Dialect().Name().String() != "pg" {
		return nil
	}
	q, err := notification(tx, c)
	if err != nil {
		return err
	}
	if _, err := q.Exec(ctx); err != nil {
		return fmt.Errorf("announcing the change: %w", err)
	}
	return nil
}

// notification is the PostgreSQL statement that announces c: a query of
// its own, or the last of a statement that writes first (writeEvents).
func notification(tx bun.Tx, c Change) (*bun.RawQuery, error) {
	body, err := json.Marshal(notice{Business: c.Business, Revision: c.Revision, From: Day(c.From), To: Day(c.To), Open: c.Open})
	if err != nil {
		return nil, err
	}
	return tx.NewRaw("SELECT pg_notify(?, (?::jsonb || jsonb_build_object('schema', current_schema()))::text)", notifyChannel, string(body)), nil
}

// Listen hears the changes other processes on the PostgreSQL database at
// dsn commit, and hands them to this store's subscribers. It returns once
// it listens, so every write committed after it is heard, and goes on in
// the background on one connection of its own until ctx ends, reconnecting
// with backoff when the connection is lost (log says why). A business
// whose revision moved on while it was not listening is told it may have
// changed everywhere.
func (s *Store) Listen(ctx context.Context, dsn string, log *slog.Logger) error {
	conn, schema, err := listen(ctx, dsn)
	if err != nil {
		return err
	}
	s.tokens.listening(true)
	go func() {
		backoff := 100 * time.Millisecond
		for {
			err := s.hear(ctx, conn, schema)
			s.tokens.listening(false)
			conn.Close(context.Background())
			if ctx.Err() != nil {
				return
			}
			log.Warn("live updates: lost the PostgreSQL connection", "err", err)
			for {
				select {
				case <-ctx.Done():
					return
				case <-time.After(backoff):
				}
				if conn, schema, err = listen(ctx, dsn); err == nil {
					break
				}
				log.Warn("live updates: reconnecting to PostgreSQL", "err", err, "retry", backoff)
				backoff = min(2*backoff, 10*time.Second)
			}
			backoff = 100 * time.Millisecond
			s.tokens.listening(true)
			if err := s.catchUp(ctx); err != nil {
				log.Warn("live updates: catching up", "err", err)
			}
		}
	}()
	return nil
}

// listen opens the dedicated connection and subscribes it to the channel.
func listen(ctx context.Context, dsn string) (*pgx.Conn, string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, "", fmt.Errorf("connecting to PostgreSQL for live updates: %w", err)
	}
	var schema string
	if err := conn.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		conn.Close(ctx)
		return nil, "", fmt.Errorf("reading the schema for live updates: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		conn.Close(ctx)
		return nil, "", fmt.Errorf("listening for live updates: %w", err)
	}
	return conn, schema, nil
}

// hear publishes the notifications of one connection until it fails.
func (s *Store) hear(ctx context.Context, conn *pgx.Conn, schema string) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		var c notice
		if err := json.Unmarshal([]byte(n.Payload), &c); err != nil || c.Schema != schema {
			continue // another database's, or not ours to read
		}
		if c.Revoked != 0 {
			s.revoked(c.Revoked)
			continue
		}
		s.replicas.saw(c.Business, c.Revision)
		change := Change{Business: c.Business, Revision: c.Revision, From: engine.Date(c.From), To: engine.Date(c.To), Open: c.Open}
		s.record(change)
		s.changes.publish(change)
	}
}

// OnRevoke has f called with the id of every API token revoked from now on,
// by this process or (on PostgreSQL, once Listen runs) another one, so
// that what was opened with it can be closed.
func (s *Store) OnRevoke(f func(token int64)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onRevoke = append(s.onRevoke, f)
}

func (s *Store) revoked(token int64) {
	s.tokens.revoke(token, time.Now())
	s.mu.Lock()
	hooks := slices.Clone(s.onRevoke)
	s.mu.Unlock()
	for _, f := range hooks {
		f(token)
	}
}

// RevokeToken deletes a token of a business and tells every process, so
// that the subscriptions opened with it end at once everywhere.
func (s *Store) RevokeToken(ctx context.Context, business, id int64) (*APIToken, error) {
	var t *APIToken
	err := s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if t, err = RevokeToken(ctx, tx, business, id); err != nil {
			return err
		}
		if tx.Dialect().Name().String() != "pg" {
			return nil
		}
		body, err := json.Marshal(notice{Business: business, Revoked: id})
		if err != nil {
			return err
		}
		// Delivered on commit, with the schema as a change's is.
		_, err = tx.ExecContext(ctx, "SELECT pg_notify(?, (?::jsonb || jsonb_build_object('schema', current_schema()))::text)",
			notifyChannel, string(body))
		return err
	})
	if err != nil {
		return nil, err
	}
	s.revoked(id)
	return t, nil
}

// SweepRevoked looks up which of the API tokens ids are gone, revoked by
// a process this one cannot hear (SQLite has no NOTIFY: a token revoked by
// koredyne token revoke beside a running server), and revokes each here as
// RevokeToken would have: what was opened with it is closed (OnRevoke).
func (s *Store) SweepRevoked(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	var found []int64
	if err := s.DB.NewSelect().Model((*APIToken)(nil)).Column("id").Where("id IN (?)", bun.In(ids)).Scan(ctx, &found); err != nil {
		return fmt.Errorf("looking for revoked tokens: %w", err)
	}
	for _, id := range ids {
		if !slices.Contains(found, id) {
			s.revoked(id)
		}
	}
	return nil
}

// catchUp tells the subscribers of every business whose revision moved on
// unheard that anything may have changed.
func (s *Store) catchUp(ctx context.Context) error {
	for id, heard := range s.changes.watched() {
		var rev int64
		if err := s.DB.NewSelect().Model((*Business)(nil)).Column("revision").Where("id = ?", id).Scan(ctx, &rev); err != nil {
			return err
		}
		if rev > heard {
			s.changes.publish(Change{Business: id, Revision: rev, From: engine.MinDate, Open: true})
		}
	}
	return nil
}

// touchBooking touches the date a booking's session was on when booked and
// the date it is on now, which differ once the session has been moved.
func (e *Edit) touchBooking(b *SessionBooking) {
	e.Touch(engine.Date(b.SessionDate))
	if s := e.sessionOf(b); s != nil {
		e.Touch(s.Date)
	}
}
