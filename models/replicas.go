package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// Replicas are PostgreSQL streaming replicas of a store's database, which
// reads that tolerate a little lag are sent to: the compiled schedule of a
// business (Store.Snapshot) and the token checks of GraphQL, CalDAV and the
// feeds. Every write, and everything read inside one, stays on the primary.
//
// A read never goes back in time for whoever asked: it must see at least
// the revision of the business that the request says its client knows
// (AtLeast: GraphQL's Koredyne-Revision header) and that this process
// knows of (its own writes, the writes of others it heard through LISTEN,
// the snapshots it holds). A replica that has not replayed that revision
// yet is passed over for the primary, as is one that is down, not a
// replica, or further behind the primary than the most lag allowed: a
// prober measures each every ProbeEvery. So a replica only ever takes load
// off the primary; no request fails or reads an older revision because of
// one.
type Replicas struct {
	primary *DB
	list    []*replica
	maxLag  time.Duration
	log     *slog.Logger
	next    atomic.Uint64 // round robin

	// OnRead, when set, hears where each read went: "replica" or
	// "primary" (a read that could have gone to a replica but did not,
	// with why: "primary_behind", "primary_down" or "primary_none").
	OnRead func(target string)

	mu   sync.Mutex
	seen map[int64]seenRev // business → newest revision this process knows of

	samples []walSample // the primary's WAL position over the last lags
}

// ProbeEvery is how often each replica's state and lag are measured.
const ProbeEvery = 250 * time.Millisecond

type replica struct {
	db   *DB
	name string // host:port, for logs

	mu     sync.Mutex
	usable bool // answered the last probe, in recovery, within the lag
	lag    time.Duration
	why    string // why not usable, for logs
}

type seenRev struct {
	rev int64
	at  time.Time // when it was seen
}

// keepSeen is how long a revision seen is held against the replicas
// beyond the most lag allowed: by then every replica that may be read has
// replayed it (the prober samples the primary's WAL and measures each
// replica every ProbeEvery, each probe within 2 s), so the floor it sets is
// kept by the lag check alone, and a process that sees thousands of
// businesses holds only those of the last seconds.
const keepSeen = 4*ProbeEvery + 5*time.Second

type walSample struct {
	at  time.Time
	lsn uint64
}

// OpenReplicas opens the replicas at urls beside primary: a replica that
// cannot be reached yet is not an error, it is read once the prober finds
// it up. maxLag is the most a replica may be behind and still be read;
// conns the most connections opened to each.
func OpenReplicas(ctx context.Context, primary *DB, urls []string, maxLag time.Duration, conns int, log *slog.Logger) (*Replicas, error) {
	r := &Replicas{primary: primary, maxLag: maxLag, log: log, seen: make(map[int64]seenRev)}
	for _, u := range urls {
		db, err := openPostgres(ctx, u, false)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("replica: %w", err)
		}
		db.SetMaxOpenConns(conns)
		db.SetMaxIdleConns(conns)
		r.list = append(r.list, &replica{db: db, name: hostOf(u), why: "not probed yet"})
	}
	r.probe(ctx)
	return r, nil
}

func hostOf(dsn string) string {
	if _, rest, ok := strings.Cut(dsn, "@"); ok {
		dsn = rest
	} else {
		_, dsn, _ = strings.Cut(dsn, "://")
	}
	host, _, _ := strings.Cut(dsn, "/")
	return host
}

// Close closes the replicas' connections.
func (r *Replicas) Close() {
	for _, rep := range r.list {
		rep.db.Close()
	}
}

// Run probes the replicas every ProbeEvery until ctx ends.
func (r *Replicas) Run(ctx context.Context) {
	t := time.NewTicker(ProbeEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.probe(ctx)
			r.forget(time.Now())
		}
	}
}

// probe measures every replica once: whether it answers, is a replica,
// and how far it is behind the primary. The lag is the age of the oldest
// primary WAL position, among those sampled, that the replica has not
// replayed: when it has replayed all it is 0, however long ago the last
// write was (an idle primary writes no WAL, and then a replica is not
// behind, although pg_last_xact_replay_timestamp grows old).
func (r *Replicas) probe(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	now := time.Now()
	var pos string
	if err := r.primary.QueryRowContext(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&pos); err == nil {
		if lsn, ok := parseLSN(pos); ok {
			r.samples = append(r.samples, walSample{now, lsn})
		}
	}
	// Samples older than twice the lag allowed tell nothing more.
	for len(r.samples) > 1 && now.Sub(r.samples[1].at) > 2*r.maxLag {
		r.samples = r.samples[1:]
	}
	for _, rep := range r.list {
		usable, lag, why := r.measure(ctx, rep, now)
		rep.mu.Lock()
		if usable != rep.usable || why != rep.why {
			if usable {
				r.log.Info("replica: reading from it", "replica", rep.name, "lag", lag)
			} else {
				r.log.Warn("replica: reading from the primary instead", "replica", rep.name, "why", why)
			}
		}
		rep.usable, rep.lag, rep.why = usable, lag, why
		rep.mu.Unlock()
	}
}

func (r *Replicas) measure(ctx context.Context, rep *replica, now time.Time) (bool, time.Duration, string) {
	var recovering bool
	var replayed sql.NullString
	if err := rep.db.QueryRowContext(ctx, "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text").Scan(&recovering, &replayed); err != nil {
		return false, 0, "down: " + err.Error()
	}
	if !recovering {
		return false, 0, "not a replica (pg_is_in_recovery() is false)"
	}
	lsn, ok := parseLSN(replayed.String)
	if !ok {
		return false, 0, "replays no WAL"
	}
	var lag time.Duration
	for _, s := range r.samples {
		if s.lsn > lsn {
			lag = now.Sub(s.at)
			break
		}
	}
	if lag > r.maxLag {
		return false, lag, fmt.Sprintf("%v behind the primary", lag.Round(time.Millisecond))
	}
	return true, lag, ""
}

// parseLSN reads a WAL position as PostgreSQL prints it ("16/B374D848").
func parseLSN(s string) (uint64, bool) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, false
	}
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	return h<<32 | l, err1 == nil && err2 == nil
}

// pick returns a usable replica, in turn, or nil.
func (r *Replicas) pick() *replica {
	n := uint64(len(r.list))
	start := r.next.Add(1)
	for i := range n {
		rep := r.list[(start+i)%n]
		rep.mu.Lock()
		ok := rep.usable
		rep.mu.Unlock()
		if ok {
			return rep
		}
	}
	return nil
}

// down takes a replica out of use after a failed read, until the prober
// finds it well again.
func (r *Replicas) down(rep *replica, err error) {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	if rep.usable {
		r.log.Warn("replica: a read failed, reading from the primary instead", "replica", rep.name, "err", err)
	}
	rep.usable, rep.why = false, "a read failed: "+err.Error()
}

// saw records that revision rev of a business exists: reads from now on
// must see it.
func (r *Replicas) saw(business, rev int64) {
	if r == nil {
		return
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[business].rev <= rev {
		r.seen[business] = seenRev{rev, now}
	}
}

// forget drops the revisions seen longer than maxLag + keepSeen ago.
func (r *Replicas) forget(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, s := range r.seen {
		if now.Sub(s.at) > r.maxLag+keepSeen {
			delete(r.seen, id)
		}
	}
}

// seenCount is how many businesses' revisions are held.
func (r *Replicas) seenCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

func (r *Replicas) read(target string) {
	if r.OnRead != nil {
		r.OnRead(target)
	}
}

type atLeastKey struct{}
type primaryKey struct{}

// AtLeast returns ctx for a request whose client knows revision rev of the
// business it reads (it wrote it, or read it): what it reads must be that
// revision or a later one, so a replica that has not replayed it yet is
// passed over. On the primary every revision is there, and a revision the
// business never reached (a client's mistake) only sends its reads there.
func AtLeast(ctx context.Context, rev int64) context.Context {
	return context.WithValue(ctx, atLeastKey{}, rev)
}

// Primary returns ctx whose reads all go to the primary.
func Primary(ctx context.Context) context.Context {
	return context.WithValue(ctx, primaryKey{}, true)
}

// floor is the oldest revision of a business a read within ctx may see.
func (r *Replicas) floor(ctx context.Context, business int64) int64 {
	f, _ := ctx.Value(atLeastKey{}).(int64)
	r.mu.Lock()
	defer r.mu.Unlock()
	return max(f, r.seen[business].rev)
}

// errBehind is a replica's read of a revision older than the floor.
var errBehind = errors.New("the replica is behind the revision asked for")

// SetReplicas has the store read from replicas (nil: the primary only).
func (s *Store) SetReplicas(r *Replicas) { s.replicas = r }

// lagging runs fn on a replica when one may serve ctx, and on the primary
// when none may or when it fails there, for whatever reason (a replica
// never fails a read: the primary has the last word, errors included).
// fn returns errBehind when what it found on a replica is older than
// floor says a read must see.
func (s *Store) lagging(ctx context.Context, fn func(db *DB) error) error {
	r := s.replicas
	if r == nil {
		return fn(s.DB)
	}
	if primaryOnly(ctx) {
		return fn(s.DB)
	}
	rep := r.pick()
	if rep == nil {
		r.read("primary_none")
		return fn(s.DB)
	}
	err := fn(rep.db)
	if err == nil {
		r.read("replica")
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	var known *engine.Error
	switch {
	case errors.Is(err, errBehind), errors.Is(err, ErrBadToken), errors.Is(err, sql.ErrNoRows), errors.As(err, &known):
		// Not there yet (a revision, a token, a business): the
		// primary knows.
		r.read("primary_behind")
	default:
		r.down(rep, err)
		r.read("primary_down")
	}
	return fn(s.DB)
}

// readLagging is Store.read on a replica when one may serve it (as lagging
// has it), for reads of one business: a replica's read begins by checking
// that the business has the revision the read must see.
func (s *Store) readLagging(ctx context.Context, business int64, fn func(bun.Tx) error) error {
	return s.lagging(ctx, func(db *DB) error {
		return readTx(ctx, db, func(tx bun.Tx) error {
			if db != s.DB {
				var rev int64
				if err := tx.NewSelect().Model((*Business)(nil)).Column("revision").Where("id = ?", business).Scan(ctx, &rev); err != nil {
					return err
				}
				if rev < s.replicas.floor(ctx, business) {
					return errBehind
				}
			}
			return fn(tx)
		})
	})
}
