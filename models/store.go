package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/cache"
)

// Store serves the schedule of many businesses from in-memory snapshots and
// writes them through the guarded write.
type Store struct {
	DB  *DB
	now func() time.Time
	// OnWrite, when set, hears the outcome of every guarded write:
	// "committed", "unchanged", "clash" (a CLASH or STAFF_UNAVAILABLE
	// refusal), "error" or "dry_run" (for
	// metrics).
	OnWrite func(outcome string)
	// Webhooks are the settings of the events writes send (webhooks.go).
	Webhooks Webhooks

	budget *cache.Budget
	snaps  *cache.Cache[int64, *Snapshot] // the newest snapshot of each business, by id

	mu       sync.Mutex
	loads    map[loadKey]*load   // see Snapshot
	gates    map[int64]*gate     // see enter
	onRevoke []func(token int64) // see OnRevoke
	log      changeLog           // see Unchanged
	replicas *Replicas           // see SetReplicas
	logins   logins              // see AuthenticateCalendar
	tokens   tokenCache          // see Authenticate

	changes broadcaster  // see Subscribe
	yield   yielder      // see YieldWrites
	drawn   atomic.Int64 // the temporary ids handed out (see ProvisionalID)

	cold chan struct{} // see LimitColdLoads
	// beforeLoad, when set, runs as a cold load takes its slot (tests).
	beforeLoad func(business int64)
}

// NewStore returns a store on db; now is its clock (time.Now in production).
func NewStore(db *DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	s := &Store{DB: db, now: now, yield: newYielder(time.Now)}
	s.UseBudget(cache.NewBudget(DefaultCacheBytes))
	return s
}

// DefaultCacheBytes is the memory budget of a store's caches unless it is
// given one (UseBudget).
const DefaultCacheBytes = 256 << 20

// UseBudget has the store keep its snapshots within b, which the caches of
// the API and the gateway share (Budget). It is called before the store
// serves, and forgets every snapshot kept so far.
func (s *Store) UseBudget(b *cache.Budget) {
	s.budget = b
	s.snaps = cache.New[int64, *Snapshot](b, "snapshots")
}

// Budget is the memory budget of the store's caches, for the caches built
// on the store to share.
func (s *Store) Budget() *cache.Budget { return s.budget }

// Now returns the store's clock reading.
func (s *Store) Now() time.Time { return s.now() }

// Snapshot is one revision of a business's schedule, compiled. It is never
// changed once built; readers share it.
type Snapshot struct {
	Business  Business
	State     engine.State
	Timetable *engine.Timetable
	Versions  *Versions
	// Accepted are the identities of clashes the business brought with it
	// (see Edit.AcceptClashes).
	Accepted map[string]bool

	mu        sync.Mutex
	reports   map[engine.Date]engine.Report
	uncovered map[engine.Date][]engine.Uncovered
	proof     *engine.Proof                  // the last proof made, which the next revision carries on from
	kept      *cache.Cache[int64, *Snapshot] // the cache holding it, to count its reports
}

func newSnapshot(b Business, s engine.State, v *Versions, accepted map[string]bool) (*Snapshot, error) {
	tt, err := engine.New(s)
	if err != nil {
		return nil, fmt.Errorf("business %s at revision %d: %w", b.Slug, b.Revision, err)
	}
	return &Snapshot{Business: b, State: s, Timetable: tt, Versions: v, Accepted: accepted}, nil
}

// nextSnapshot is newSnapshot for the state a write's step leads to (see
// engine.Step): its timetable is compiled from the one before, again only
// where the two differ, and not validated again.
func nextSnapshot(step *engine.Step, b Business, s engine.State, v *Versions, accepted map[string]bool) (*Snapshot, error) {
	tt, err := step.Timetable()
	if err != nil {
		return nil, fmt.Errorf("business %s at revision %d: %w", b.Slug, b.Revision, err)
	}
	return &Snapshot{Business: b, State: s, Timetable: tt, Versions: v, Accepted: accepted}, nil
}

// loadSnapshot reads a business's schedule at its revision.
func loadSnapshot(ctx context.Context, tx bun.IDB, b *Business) (*Snapshot, error) {
	st, v, err := b.LoadState(ctx, tx)
	if err != nil {
		return nil, err
	}
	var accepted map[string]bool
	if err := acceptedClashes(queryReader{ctx, tx, b.ID}, &accepted); err != nil {
		return nil, err
	}
	return newSnapshot(*b, st, v, accepted)
}

// PreExisting reports whether a clash is one the business brought with it.
func (sn *Snapshot) PreExisting(c *engine.Clash) bool {
	return slices.ContainsFunc(c.Keys(), func(k string) bool { return sn.Accepted[k] })
}

// Today is the date in the business's time zone at now.
func (sn *Snapshot) Today(now time.Time) engine.Date {
	return engine.DateOf(now.In(sn.State.Business.Location))
}

// Clashes returns the clash proof from the week of today on, computed once
// per snapshot and date.
func (sn *Snapshot) Clashes(today engine.Date) engine.Report {
	r, _ := sn.ProveClashes(context.Background(), today)
	return r
}

// ProveClashes is Clashes within a request: the proof stops with
// engine.ErrStopped once ctx is done (its deadline passed, or the client
// went away), and a stopped proof is not kept.
func (sn *Snapshot) ProveClashes(ctx context.Context, today engine.Date) (engine.Report, error) {
	return sn.proveFrom(ctx, nil, nil, today)
}

// proveFrom is ProveClashes for a snapshot written over prev by step: the
// proof prev kept for the same day, if any, is carried on (engine.Proof.Step),
// so a write proves again only the rooms and people it touched.
func (sn *Snapshot) proveFrom(ctx context.Context, prev *Snapshot, step *engine.Step, today engine.Date) (engine.Report, error) {
	var base *engine.Proof
	if prev != nil {
		prev.mu.Lock()
		base = prev.proof
		prev.mu.Unlock()
	}
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if r, ok := sn.reports[today]; ok {
		return r, nil
	}
	var p *engine.Proof
	var err error
	if step != nil {
		p, err = base.Step(step, today, Stop(ctx))
	} else {
		p, err = base.Next(sn.Timetable, today, Stop(ctx))
	}
	if err != nil {
		return engine.Report{}, err
	}
	if sn.reports == nil {
		sn.reports = make(map[engine.Date]engine.Report)
	}
	r := p.Report()
	sn.reports[today] = r
	sn.proof = p
	if sn.kept != nil {
		sn.kept.Grow(sn.Business.ID, sn, traced*reportSize(r))
	}
	return r, nil
}

// Uncovered returns the sessions from the week of today on that time off
// or working hours leave without one of their staff (engine.Uncovered),
// computed once per snapshot and date.
func (sn *Snapshot) Uncovered(today engine.Date) []engine.Uncovered {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if u, ok := sn.uncovered[today]; ok {
		return u
	}
	u := sn.Timetable.Uncovered(today)
	if sn.uncovered == nil {
		sn.uncovered = make(map[engine.Date][]engine.Uncovered)
	}
	sn.uncovered[today] = u
	return u
}

// Stop is the engine's stop function for work done within ctx: it reports
// true once ctx is done.
func Stop(ctx context.Context) func() bool {
	if ctx.Done() == nil {
		return nil // a context that is never done
	}
	return func() bool { return ctx.Err() != nil }
}

// Snapshot returns the schedule of a business at its current revision. A
// caller that already knows the revision (Authenticate returns it) passes
// it; -1 asks the database.
func (s *Store) Snapshot(ctx context.Context, businessID, revision int64) (*Snapshot, error) {
	if revision >= 0 {
		// With replicas the revision may have been read from one that
		// lags: a newer one held here is as good, and committed.
		if sn, ok := s.snaps.Lookup(businessID, func(sn *Snapshot) bool {
			return sn.Business.Revision == revision || s.replicas != nil && sn.Business.Revision > revision
		}); ok {
			return sn, nil
		}
	}
	for revision >= 0 && s.replicas == nil {
		// Right after a write commits, and before it keeps its snapshot,
		// every request reads the new revision and misses: one of them
		// loads it, the others wait for that load rather than each
		// loading the same schedule.
		k := loadKey{businessID, revision}
		s.mu.Lock()
		l := s.loads[k]
		if l == nil {
			l = &load{done: make(chan struct{})}
			if s.loads == nil {
				s.loads = make(map[loadKey]*load)
			}
			s.loads[k] = l
			s.mu.Unlock()
			l.sn, l.err = s.load(ctx, businessID, revision)
			s.mu.Lock()
			delete(s.loads, k)
			s.mu.Unlock()
			close(l.done)
			return l.sn, l.err
		}
		s.mu.Unlock()
		select {
		case <-l.done:
			if l.err == nil {
				return l.sn, nil
			}
			// The load failed for its own request (its context was
			// done, say): load, or wait, again for this one.
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return s.load(ctx, businessID, revision)
}

// expect registers the snapshot a write is about to commit as the load of
// its revision, just before the COMMIT: a reader that sees the new
// revision before the write has kept the snapshot then waits for it
// (Snapshot) instead of reading the whole schedule from the database. The
// write ends it with loaded: with its snapshot once committed and kept,
// or with the error that stopped it, which sends the readers waiting to
// load the revision themselves (the revision may then be another
// process's). It returns nil when a load of the revision is under way.
func (s *Store) expect(k loadKey) *load {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loads[k] != nil {
		return nil
	}
	l := &load{done: make(chan struct{})}
	if s.loads == nil {
		s.loads = make(map[loadKey]*load)
	}
	s.loads[k] = l
	return l
}

// loaded ends the load l of k with sn or err.
func (s *Store) loaded(k loadKey, l *load, sn *Snapshot, err error) {
	l.sn, l.err = sn, err
	s.mu.Lock()
	delete(s.loads, k)
	s.mu.Unlock()
	close(l.done)
}

// loadKey is a business and the revision a load of it was asked for.
type loadKey struct{ business, revision int64 }

// load is a snapshot being loaded; done is closed once sn or err is set.
type load struct {
	done chan struct{}
	sn   *Snapshot
	err  error
}

// LimitColdLoads has at most n snapshots loaded from the database at once
// (n < 1: no limit); a request that needs one more waits for a slot, or
// for its context to end. Only cold requests take a slot: one answered
// from memory never waits for it. On a machine whose cores the database
// shares, a sweep through thousands of cold businesses would otherwise
// have as many loads (and PostgreSQL backends) running as requests came
// in, and every warm request queued for a core behind them. It is called
// before the store serves.
func (s *Store) LimitColdLoads(n int) {
	s.cold = nil
	if n > 0 {
		s.cold = make(chan struct{}, n)
	}
}

// ColdLoads reports how many snapshot loads hold a slot now (see
// LimitColdLoads), and the limit (0: none).
func (s *Store) ColdLoads() (running, limit int) { return len(s.cold), cap(s.cold) }

// load is Snapshot without the cache in front: the business's current
// revision, from the cache when it holds it, else from the database. A
// load from the database waits for a slot among the cold loads
// (LimitColdLoads) first.
func (s *Store) load(ctx context.Context, businessID, revision int64) (*Snapshot, error) {
	if revision < 0 && s.cold != nil {
		// A caller that does not know the revision (the public
		// timetable) asks for it first, without a slot: when the cache
		// holds it, the request is warm.
		var rev int64
		if err := s.lagging(ctx, func(db *DB) error {
			b, err := businessByID(ctx, db, businessID, false)
			if err != nil {
				return err
			}
			if db != s.DB && b.Revision < s.replicas.floor(ctx, businessID) {
				return errBehind
			}
			rev = b.Revision
			return nil
		}); err != nil {
			return nil, err
		}
		if sn, ok := s.snaps.Lookup(businessID, func(c *Snapshot) bool { return c.Business.Revision == rev }); ok {
			return sn, nil
		}
	}
	if s.cold != nil {
		select {
		case s.cold <- struct{}{}:
			defer func() { <-s.cold }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if s.beforeLoad != nil {
		s.beforeLoad(businessID)
	}
	if revision >= 0 && s.DB.Postgres() {
		return s.loadBatch(ctx, businessID)
	}
	var sn *Snapshot
	err := s.readLagging(ctx, businessID, func(tx bun.Tx) error {
		b, err := businessByID(ctx, tx, businessID, false)
		if err != nil {
			return err
		}
		match := func(c *Snapshot) bool { return c.Business.Revision == b.Revision }
		if c := s.cached(businessID); revision < 0 {
			c, ok := s.snaps.Lookup(businessID, match) // the lookup not counted yet
			if ok {
				sn = c
				return nil
			}
		} else if c != nil && match(c) {
			sn = c
			return nil
		}
		sn, err = loadSnapshot(ctx, tx, b)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.keep(sn)
	return sn, nil
}

// loadBatch is load for a caller that knows the revision it reads (and
// looked in the cache for it already), on PostgreSQL: the business and its
// schedule are read in one round trip (loadSnapshotBatch) rather than a
// query for the revision, then one for each table. A replica's read
// checks the revision it found against what the read must see.
func (s *Store) loadBatch(ctx context.Context, businessID int64) (*Snapshot, error) {
	var sn *Snapshot
	err := s.lagging(ctx, func(db *DB) error {
		var err error
		sn, err = loadSnapshotBatch(ctx, db, businessID, func(b *Business) error {
			if db != s.DB && b.Revision < s.replicas.floor(ctx, businessID) {
				return errBehind
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	if c := s.cached(businessID); c != nil && c.Business.Revision == sn.Business.Revision {
		return c, nil // another request loaded it meanwhile: share one copy
	}
	s.keep(sn)
	return sn, nil
}

// loadSnapshotBatch reads a business's schedule at its current revision in
// one round trip to PostgreSQL (batchReader): the business row, every
// table, the versions and the accepted clashes, all at one point in time.
// check sees the business row before anything is compiled.
func loadSnapshotBatch(ctx context.Context, db *DB, businessID int64, check func(*Business) error) (*Snapshot, error) {
	rd := &batchReader{db: db, business: businessID}
	var found []Business
	var st engine.State
	v := newVersions()
	var accepted map[string]bool
	if err := rd.read(&found, func(q *bun.SelectQuery, business any) *bun.SelectQuery { return q.Where("id = ?", business) }, func() error {
		if len(found) == 0 {
			return engine.Errorf(engine.NotFound, "", "no such business")
		}
		if err := check(&found[0]); err != nil {
			return err
		}
		settings, err := found[0].Settings()
		if err != nil {
			return err
		}
		st.Business, v.Settings = settings, found[0].SettingsRevision
		return nil
	}); err != nil {
		return nil, err
	}
	if err := loadState(rd, &st, v); err != nil {
		return nil, err
	}
	if err := acceptedClashes(rd, &accepted); err != nil {
		return nil, err
	}
	if err := rd.run(ctx); err != nil {
		return nil, err
	}
	return newSnapshot(found[0], st, v, accepted)
}

// cached is the snapshot kept for a business, if any, without counting a
// lookup (the caller counted one already, or is a write).
func (s *Store) cached(businessID int64) *Snapshot {
	sn, _ := s.snaps.Peek(businessID)
	return sn
}

// keep caches sn unless a newer revision is cached already. Its reports
// proven from now on count towards its size.
func (s *Store) keep(sn *Snapshot) {
	s.replicas.saw(sn.Business.ID, sn.Business.Revision)
	sn.mu.Lock()
	defer sn.mu.Unlock()
	size := sn.size()
	if s.snaps.PutIf(sn.Business.ID, sn, size, func(old *Snapshot, ok bool) bool {
		return !ok || old.Business.Revision <= sn.Business.Revision
	}) {
		sn.kept = s.snaps
	}
}

// read runs fn in a read-only transaction that sees one point in time.
func (s *Store) read(ctx context.Context, fn func(bun.Tx) error) error { return readTx(ctx, s.DB, fn) }

// readTx is read on db (the store's, or a replica).
func readTx(ctx context.Context, db *DB, fn func(bun.Tx) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if db.Postgres() {
		opts.Isolation = sql.LevelRepeatableRead
	}
	return db.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error { return fn(tx) })
}

// Read runs fn in a read-only transaction, for queries outside the snapshot
// (clients, subscriptions, tokens).
func (s *Store) Read(ctx context.Context, fn func(bun.Tx) error) error { return s.read(ctx, fn) }

// IDB is a database or a transaction, for the functions of this package
// that run in either.
type IDB = bun.IDB

// errTrial ends the transaction of a trial.
var errTrial = errors.New("trial: rolled back")

// Trial runs fn in a transaction that is always rolled back: the dry run of
// a write outside the guarded schedule write (tokens, CalDAV logins, feed
// secrets), which makes every check, the database's constraints too, and
// keeps nothing.
func (s *Store) Trial(ctx context.Context, fn func(IDB) error) error {
	err := s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errTrial
	})
	if errors.Is(err, errTrial) {
		return nil
	}
	return err
}

func businessByID(ctx context.Context, db bun.IDB, id int64, forUpdate bool) (*Business, error) {
	b := new(Business)
	q := db.NewSelect().Model(b).Where("id = ?", id)
	if forUpdate && lockWrites && db.Dialect().Name().String() == "pg" {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, engine.Errorf(engine.NotFound, "", "no such business")
		}
		return nil, fmt.Errorf("reading business %d: %w", id, err)
	}
	return b, nil
}

// ProvisionalID returns an id for a row a dry run would make: negative, so
// never a row's, and drawn from the store's one sequence, so no two rows
// the server answers with until it restarts share one. A dry run's new
// rows answer with these rather than the ids their inserts drew in the
// transaction rolled back, which the next real rows will hold.
func (s *Store) ProvisionalID() int64 { return -s.drawn.Add(1) }

// Edit is what a write changes: a working copy of the schedule, and the
// transaction for tables outside it (clients, subscriptions).
type Edit struct {
	// State is the schedule to change. New rows take ids from NewID.
	State    engine.State
	Before   *Snapshot
	Business *Business
	Tx       bun.Tx
	Today    engine.Date
	// AcceptClashes lets the write keep the clashes it adds, as ones the
	// business brought with it: an import of data another system let
	// through. They are remembered, reported as pre-existing, and never
	// block a later write; a clash that differs from them is new.
	AcceptClashes bool
	// AllowNeedsCover lets the write leave sessions without their staff
	// (a staff member away or outside their hours): time off and hours
	// are facts, and a timetable write may say it knows. Otherwise a
	// write that adds such a session is refused (UnavailableError).
	AllowNeedsCover bool
	// Refused, when set, hears that the write is refused for what it
	// adds — clashes (a *ClashError) or sessions needing cover (an
	// *UnavailableError), the refusal it is given — once its
	// transaction has rolled back, before Write returns; see Try.
	Refused func(refusal error, try Try)

	// Impact is what the caller reads of the write's impact (impact.go):
	// what it does not ask for is not computed.
	Impact ImpactAsk

	dryRun    bool
	newID     func() int64
	afterSave []func(ctx context.Context, id func(int64) int64) error
	// changedApart is set by the edits of the tables outside the
	// schedule (clients, subscriptions, bookings) that change a row.
	changedApart bool
	touched      []engine.Date           // see Touch
	noted        []noted                 // events the write's code knows of (webhooks_events.go)
	bookingsRead *bookingsRead           // the bookings its impact read, which its events use (impact.go)
	clients      map[int64]engine.Client // the clients the write read, by id (see Client)
	conn         *sql.Conn               // the transaction's connection, on PostgreSQL (see txReads)
	db           *DB
	replaced     bool // the whole schedule was replaced (ReplaceSchedule)
}

// AfterSave runs fn in the write's transaction once the schedule is saved;
// id turns the temporary ids of the edit into real ones. Writes use it for
// the tables outside the schedule that refer to new schedule rows.
func (e *Edit) AfterSave(fn func(ctx context.Context, id func(int64) int64) error) {
	e.afterSave = append(e.afterSave, fn)
}

// NewID returns a temporary id for a new row, negative; a write replaces
// it with the row's real id (Result.ID), a dry run answers with it.
func (e *Edit) NewID() int64 { return e.newID() }

// DryRun reports whether the edit is a dry run's, which answers with the
// temporary ids of its new rows.
func (e *Edit) DryRun() bool { return e.dryRun }

// invented is the id a row inserted outside the schedule (a client, a
// subscription, a booking) answers with: its own, or in a dry run a
// provisional one (see Store.ProvisionalID).
func (e *Edit) invented(id int64) int64 {
	if e.dryRun {
		return e.newID()
	}
	return id
}

// Result is what a write did, or would do in a dry run.
type Result struct {
	DryRun   bool
	Revision int64
	// Clashes are the clashes the write adds. A write that adds any is
	// refused, so only a dry run (or a write that accepts them) returns
	// them.
	Clashes []engine.Clash
	// NeedsCover are the sessions the write leaves without one of their
	// staff that were not so before (engine.NewUncovered).
	NeedsCover []engine.Uncovered
	// After is the schedule after the write.
	After *Snapshot
	// Events are the webhook events the write stored (would store, in
	// a dry run): docs/webhooks.md.
	Events []WebhookEvent
	// Impact is what the write does to the people on the sessions it
	// changes (impact.go); empty for a write that changes no session.
	Impact *Impact
	ids    map[int64]int64
}

// ID returns the real id of a row a write created under a temporary id.
func (r *Result) ID(id int64) int64 {
	if v, ok := r.ids[id]; ok {
		return v
	}
	return id
}

// ClashError refuses a write that would add clashes.
type ClashError struct {
	Clashes []engine.Clash
}

func (e *ClashError) Error() string {
	if len(e.Clashes) == 1 {
		return e.Clashes[0].Message
	}
	return fmt.Sprintf("%s (and %d more clashes)", e.Clashes[0].Message, len(e.Clashes)-1)
}

func (e *ClashError) Unwrap() error { return &engine.Error{Code: engine.Conflict, Message: e.Error()} }

// UnavailableError refuses a write that would put staff into sessions they
// are away for or outside their hours; Messages say each in the
// business's words, in the order of NeedsCover.
type UnavailableError struct {
	NeedsCover []engine.Uncovered
	Messages   []string
}

func (e *UnavailableError) Error() string {
	if len(e.Messages) == 1 {
		return e.Messages[0]
	}
	return fmt.Sprintf("%s (and %d more)", e.Messages[0], len(e.Messages)-1)
}

func (e *UnavailableError) Unwrap() error {
	return &engine.Error{Code: engine.Unavailable, Message: e.Error()}
}

// errDryRun rolls back a dry run once everything has been checked;
// errUnchanged a write that turned out to change nothing.
var (
	errDryRun    = errors.New("dry run")
	errUnchanged = errors.New("nothing changed")
)

// Write is the guarded write, the only path that writes a business: begin;
// take the business's write lock (SELECT … FOR UPDATE on PostgreSQL; the
// transaction itself begins IMMEDIATE on SQLite); take its schedule; let fn
// change a copy; validate it; save the difference; prove the clashes again
// and roll back with a *ClashError if any is new; bump the revision; commit.
// Two processes on one database never interleave writes of one business. A
// dry run does all of it and rolls back, so what it returns is exactly what
// the write would do. A write that changes no row (an update to the values
// a row has) rolls back too and keeps the revision, dry run or not.
func (s *Store) Write(ctx context.Context, businessID int64, dryRun bool, fn func(*Edit) error) (*Result, error) {
	leave, err := s.turn(ctx, businessID)
	if err != nil {
		s.wrote("error")
		return nil, err
	}
	defer leave()
	var res *Result
	var change Change
	var pending *load // see expect
	var key loadKey
	var refused *refusal // see Edit.Refused
	// Every statement runs on ctx and stops with it, but the transaction
	// itself outlives it by commitGrace: a COMMIT already sent is waited for,
	// not cut off, so a request that ends while its write commits never
	// answers "nothing was changed" for a write the database holds.
	txCtx, cancel := commitContext(ctx)
	defer cancel()
	// On PostgreSQL the write holds its connection, so that reads made
	// together go in one round trip on it (txReads).
	runInTx, conn := s.DB.RunInTx, (*sql.Conn)(nil)
	if s.DB.Postgres() {
		c, err := s.DB.Conn(txCtx)
		if err != nil {
			s.wrote("error")
			return nil, err
		}
		defer c.Close()
		runInTx, conn = c.RunInTx, c.Conn
	}
	err = runInTx(txCtx, &sql.TxOptions{}, func(_ context.Context, tx bun.Tx) error {
		b, err := businessByID(ctx, tx, businessID, true)
		if err != nil {
			return err
		}
		before := s.cached(businessID)
		if before == nil || before.Business.Revision != b.Revision {
			if before, err = loadSnapshot(ctx, tx, b); err != nil {
				return err
			}
		}
		e := &Edit{State: before.State.Clone(), Before: before, Business: b, Tx: tx, Today: before.Today(s.now()), dryRun: dryRun, newID: s.ProvisionalID,
			conn: conn, db: s.DB}
		if err := fn(e); err != nil {
			return err
		}
		// The state before was valid: only what the edit changed is
		// checked again, and that difference, found once, is carried
		// through the save, the compile, the proof and the change's
		// dates (engine.Step).
		step, err := before.Timetable.Check(e.State)
		if err != nil {
			return err
		}
		after := e.State
		var edited engine.State
		if dryRun {
			edited = e.State.Clone() // SaveState rewrites the temporary ids of e.State's rows
		}
		rev, now := b.Revision+1, s.now()
		versions := before.Versions.clone()
		ids, changed, err := SaveState(ctx, tx, b, before.State, &after, rev, versions)
		if err != nil {
			return err
		}
		saved := func(id int64) int64 {
			if v, ok := ids[id]; ok {
				return v
			}
			return id
		}
		answered := ids // the ids the result answers with, by temporary id
		if dryRun {
			// The inserts made every check the database makes; the
			// result answers with the edit's own, provisional ids.
			canonical(&edited)
			after, answered = edited, nil
			step.Saved(after, func(id int64) int64 { return id })
		} else {
			step.Saved(after, saved)
		}
		for _, fn := range e.afterSave {
			if err := fn(ctx, saved); err != nil {
				return err
			}
		}
		if !changed && !e.changedApart {
			// A write that changes nothing keeps the revision: caches,
			// sync tokens and listeners have nothing to hear.
			res = &Result{DryRun: dryRun, Revision: b.Revision, After: before}
			return errUnchanged
		}
		// Under the lock the row holds b.Revision until the write counts
		// it up, as it commits (commitRevision).
		b.Revision = rev
		versions.times[rev] = now.Unix()
		sn, err := nextSnapshot(step, *b, after, versions, before.Accepted)
		if err != nil {
			return err
		}
		today := sn.Today(now)
		v, err := judge(ctx, e, before, sn, step, today, changed)
		if err != nil {
			return err
		}
		res = &Result{DryRun: dryRun, Revision: b.Revision, After: sn, ids: answered, Clashes: v.clashes, NeedsCover: v.needsCover}
		if ue := v.unavailable(e); ue != nil {
			// Refused as the write itself would be, dry run or not: the
			// payloads carry clashes, not this.
			refused = &refusal{e, ue, before, today}
			return ue
		}
		if e.AcceptClashes && len(res.Clashes) > 0 {
			if sn.Accepted, err = accept(ctx, tx, b.ID, before.Accepted, res.Clashes); err != nil {
				return err
			}
		}
		change = changeOf(e, step, rev, today)
		if len(res.NeedsCover) > 0 && !e.replaced {
			e.noteNeedsCover(sn.Timetable, res.NeedsCover, today)
		}
		res.Impact = &Impact{}
		if ask := e.Impact; changed && !e.replaced && (ask.Totals || ask.Sessions || ask.Calendars) {
			if res.Impact, err = impactOf(ctx, e, before, sn, today, ask); err != nil {
				return err
			}
		}
		if res.Events, err = s.events(ctx, e, before, sn, change, now); err != nil {
			return err
		}
		if dryRun {
			// Nothing is committed: the revision stays what it was.
			res.Revision--
			res.After.Business.Revision--
			return errDryRun
		}
		if len(res.Clashes) > 0 && !e.AcceptClashes {
			ce := &ClashError{Clashes: res.Clashes}
			refused = &refusal{e, ce, before, today}
			return ce
		}
		if err := commitRevision(ctx, tx, b.ID, now, res.Events, &change); err != nil {
			return err
		}
		key = loadKey{b.ID, rev}
		pending = s.expect(key)
		return nil
	})
	if pending != nil {
		defer func() {
			if err == nil {
				s.loaded(key, pending, res.After, nil)
			} else {
				s.loaded(key, pending, nil, err)
			}
		}()
	}
	if errors.Is(err, errDryRun) {
		s.wrote("dry_run")
		return res, nil
	}
	if errors.Is(err, errUnchanged) {
		s.wrote("unchanged")
		return res, nil
	}
	if err != nil {
		var clash *ClashError
		var away *UnavailableError
		if errors.As(err, &clash) || errors.As(err, &away) {
			refused.tell(ctx, s)
			s.wrote("clash")
		} else {
			s.wrote("error")
		}
		return nil, err
	}
	s.keep(res.After)
	s.record(change)
	s.changes.publish(change)
	if s.Webhooks.OnEvents != nil && len(res.Events) > 0 {
		s.Webhooks.OnEvents(len(res.Events))
	}
	s.wrote("committed")
	return res, nil
}

// commitRevision is the last statement of a write that commits: the
// business's revision counted up, the time of the revision recorded, the
// webhook events stored and the change announced (writeEvents). On
// PostgreSQL they go in one message, one round trip. Under the lock the
// row holds the revision the write read, so this sets the write's; counting
// up in SQL, and recording the revision counted, keeps the unlocked test
// build from tripping over the revision's key instead of overbooking.
func commitRevision(ctx context.Context, tx bun.Tx, business int64, now time.Time, events []WebhookEvent, change *Change) error {
	if tx.Dialect().Name().String() != "pg" {
		var rev int64
		if err := tx.NewUpdate().Model((*Business)(nil)).Set("revision = revision + 1").Where("id = ?", business).Returning("revision").Scan(ctx, &rev); err != nil {
			return fmt.Errorf("bumping the revision: %w", err)
		}
		if _, err := tx.NewInsert().Model(&RevisionTime{BusinessID: business, Revision: rev, CommittedUnix: now.Unix()}).Exec(ctx); err != nil {
			return fmt.Errorf("recording the revision: %w", err)
		}
		return writeEvents(ctx, tx, business, events, change)
	}
	bump := tx.NewRaw(`WITH b AS (UPDATE businesses SET revision = revision + 1 WHERE id = ? RETURNING id, revision)
		INSERT INTO revisions (business_id, revision, committed_unix) SELECT id, revision, ? FROM b`, business, now.Unix())
	then, err := eventsStatement(tx, events, change)
	if err != nil {
		return err
	}
	q := bump
	if then != nil {
		// One simple query of two statements (pgx sends a query without
		// arguments as it is): one round trip.
		q = tx.NewRaw("?;\n?", bump, then)
	}
	if _, err := q.Exec(ctx); err != nil {
		return fmt.Errorf("committing the revision: %w", err)
	}
	return nil
}

// gate is the turn of one business's writes in this process: a token
// channel, and how many writes hold or wait for it.
type gate struct {
	turn    chan struct{}
	waiting int
}

// enter waits until no other write of the business runs in this process,
// or ctx is done; leave lets the next one in. The database's lock orders
// the writes of a business anyway, so this costs them no concurrency; but
// a write that waits here starts once the one before has kept its
// snapshot, so it edits that snapshot instead of reading the whole
// schedule again (it would, between the other's COMMIT and its keep), and
// it waits on a channel rather than polling SQLite's busy timeout. The
// unlockedtest build, whose writes must interleave, lets every write in.
func (s *Store) enter(ctx context.Context, businessID int64) (leave func(), err error) {
	if !lockWrites {
		return func() {}, nil
	}
	s.mu.Lock()
	g := s.gates[businessID]
	if g == nil {
		g = &gate{turn: make(chan struct{}, 1)}
		if s.gates == nil {
			s.gates = make(map[int64]*gate)
		}
		s.gates[businessID] = g
	}
	g.waiting++
	s.mu.Unlock()
	done := func() {
		s.mu.Lock()
		if g.waiting--; g.waiting == 0 {
			delete(s.gates, businessID)
		}
		s.mu.Unlock()
	}
	select {
	case g.turn <- struct{}{}:
		return func() { <-g.turn; done() }, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}

// commitGrace is how long a guarded write's transaction may outlive its
// request to finish a COMMIT under way; serve keeps a larger margin for
// the answer (answerMargin), so the answer still reaches the client.
const commitGrace = time.Second

// commitContext is the context of a guarded write's transaction: ctx's
// values without its cancellation, ending commitGrace after ctx's deadline.
func commitContext(ctx context.Context) (context.Context, context.CancelFunc) {
	detached := context.WithoutCancel(ctx)
	if d, ok := ctx.Deadline(); ok {
		return context.WithDeadline(detached, d.Add(commitGrace))
	}
	return context.WithCancel(detached)
}

// wrote tells OnWrite how a write ended.
func (s *Store) wrote(outcome string) {
	if s.OnWrite != nil {
		s.OnWrite(outcome)
	}
}
