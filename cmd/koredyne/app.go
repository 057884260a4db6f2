package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	_ "time/tzdata" // business time zones load on machines without a zone database

	"github.com/urfave/cli/v3"

	"github.com/koredyne/schedule/caldav"
	"github.com/koredyne/schedule/caldav/page"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/graph/graphiql"
	"github.com/koredyne/schedule/migrations"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/cache"
	"github.com/koredyne/schedule/models/inflight"
)

// Config is what every command needs to find its database, and what serve
// needs besides.
type Config struct {
	Addr           string
	Data           string
	DatabaseURL    string
	BootstrapToken string
	LogFormat      string
	PublicURL      string
	// WeeksBack and WeeksAhead are the window calendars list (CalDAV
	// listings, sync, .ics feeds) around today.
	WeeksBack, WeeksAhead int
	// ListenURL is the PostgreSQL database the live updates' LISTEN
	// connection opens: a session of its own, which a pooler in
	// transaction mode (DatabaseURL through PgBouncer) cannot give.
	// Empty: DatabaseURL.
	ListenURL string
	// ReplicaURLs are streaming replicas of DatabaseURL that reads which
	// tolerate a little lag are sent to (see models.Replicas); ReplicaLag
	// is the most a replica may be behind and still be read.
	ReplicaURLs []string
	ReplicaLag  time.Duration
	// DBConns is the most PostgreSQL connections the process opens; every
	// process on one database counts against the server's max_connections.
	DBConns int
	// AllowedOrigins are the browser origins ("https://desk.example.com")
	// whose pages may call the API: CORS and websocket upgrades. Empty:
	// same-origin pages only.
	AllowedOrigins []string
	// Playground gives every visitor a private in-memory copy of a demo
	// instead of the database; copies idle for PlaygroundIdle are dropped,
	// and beyond PlaygroundMax the least recently used goes first.
	Playground     bool
	PlaygroundIdle time.Duration
	PlaygroundMax  int
	// RateLimit is the units of work a second one token (or one address,
	// without a token) may spend, with bursts of RateBurst; a GraphQL
	// request is a unit, another a tenth, and their work more (see
	// limiter); 0: no limit.
	RateLimit float64
	RateBurst int
	// RateClock is the rate limit's clock; nil: time.Now. (Tests stop it,
	// so that what requests cost is counted without the time they take.)
	RateClock func() time.Time
	// MaxBody is the largest request body accepted, in bytes.
	MaxBody int64
	// MaxDepth is how deep a GraphQL query may nest its selections.
	MaxDepth int
	// MaxCost, MaxAliases, MaxMutations and MaxResponse bound what one
	// GraphQL request may ask for (see graph.Resolver).
	MaxCost, MaxAliases, MaxMutations, MaxResponse int
	// CacheMB is the memory budget, in MiB, of what the server keeps
	// computed (snapshots, clash reports, rendered calendars, answers).
	CacheMB int
	// RequestMB is the memory budget, in MiB, of what requests under way
	// hold: bodies as read, what decoding them makes, calendar files being
	// imported (see inflight.Budget).
	RequestMB int
	// ColdLoads is how many businesses' snapshots may be loaded from the
	// database at once (models.Store.LimitColdLoads); requests answered
	// from memory never wait for one.
	ColdLoads int
	// WriteShare is the share of the cores' time guarded writes may take
	// together while reads are being served (models.Store.YieldWrites);
	// 0 lets writes run whenever they come.
	WriteShare float64
	// DebugAddr, when set, is a loopback address serving Go's profiles
	// (/debug/pprof/): where the server's time goes, under its real load.
	DebugAddr string
	// WebhookAllowPrivate lets webhook endpoints be http and private
	// addresses, for development and tests (docs/webhooks.md);
	// WebhookLease is how long a server holds an endpoint's queue
	// unrenewed: how soon another takes over a dead one's.
	WebhookAllowPrivate bool
	WebhookLease        time.Duration
}

// Validate checks the configuration before anything is opened: what
// every command needs, and with serve the server's too. Each message names
// the flag and its environment variable.
func (c *Config) Validate(serve bool) error {
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		return fmt.Errorf("DATABASE_URL must be a postgres:// URL; leave it unset for the embedded SQLite database")
	}
	if c.DBConns < 1 {
		return fmt.Errorf("--db-conns (KOREDYNE_DB_CONNS) must be at least 1")
	}
	if !serve {
		return nil
	}
	postgres := func(u string) bool {
		return strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://")
	}
	if c.ListenURL != "" && (c.DatabaseURL == "" || !postgres(c.ListenURL)) {
		return fmt.Errorf("--listen-url (KOREDYNE_LISTEN_URL) must be a postgres:// URL, beside a DATABASE_URL")
	}
	for _, u := range c.ReplicaURLs {
		if c.DatabaseURL == "" || !postgres(u) {
			return fmt.Errorf("--replica-url (KOREDYNE_REPLICA_URLS) must be postgres:// URLs of replicas of DATABASE_URL")
		}
	}
	if c.ReplicaLag <= 0 {
		return fmt.Errorf("--replica-max-lag (KOREDYNE_REPLICA_MAX_LAG) must be more than 0")
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("--addr (KOREDYNE_ADDR) %q: %w", c.Addr, err)
	}
	if c.WeeksBack < 0 || c.WeeksAhead < 1 || c.WeeksBack+c.WeeksAhead > 104 {
		return fmt.Errorf("--calendar-weeks-back and --calendar-weeks-ahead (KOREDYNE_CALENDAR_WEEKS_BACK, _AHEAD): calendars list 0 or more weeks back and 1 or more ahead, 104 in all at most")
	}
	if c.PublicURL != "" && !strings.HasPrefix(c.PublicURL, "http://") && !strings.HasPrefix(c.PublicURL, "https://") {
		return fmt.Errorf("--public-url (KOREDYNE_PUBLIC_URL) must start with http:// or https://")
	}
	for _, o := range c.AllowedOrigins {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
			return fmt.Errorf("--allowed-origins (KOREDYNE_ALLOWED_ORIGINS): %q is not an origin like https://desk.example.com", o)
		}
	}
	if c.PlaygroundIdle < time.Minute || c.PlaygroundMax < 1 {
		return fmt.Errorf("--playground-idle and --playground-max (KOREDYNE_PLAYGROUND_IDLE, _MAX): playground copies are kept a minute or more, and at least one")
	}
	if c.RateLimit < 0 || (c.RateLimit > 0 && c.RateBurst < 1) {
		return fmt.Errorf("--rate-limit (KOREDYNE_RATE_LIMIT) must be 0 (off) or more, with a --rate-burst (KOREDYNE_RATE_BURST) of at least 1")
	}
	if c.MaxBody < 1<<10 || c.MaxDepth < 2 {
		return fmt.Errorf("--max-body (KOREDYNE_MAX_BODY) must be at least 1024 bytes and --max-depth (KOREDYNE_MAX_DEPTH) at least 2")
	}
	if c.MaxCost < 1000 || c.MaxAliases < 1 || c.MaxMutations < 1 || c.MaxResponse < 1<<16 {
		return fmt.Errorf("--max-cost (KOREDYNE_MAX_COST) must be at least 1000, --max-aliases (KOREDYNE_MAX_ALIASES) and --max-mutations (KOREDYNE_MAX_MUTATIONS) at least 1 and --max-response (KOREDYNE_MAX_RESPONSE) at least 65536 bytes")
	}
	if c.CacheMB < 1 || c.CacheMB > 1<<20 {
		return fmt.Errorf("--cache-mb (KOREDYNE_CACHE_MB) must be from 1 to 1048576 MiB, not %d", c.CacheMB)
	}
	// A body is held twice (read and decoded), and a CalDAV report's
	// megabyte eight times: a budget smaller than that would refuse them
	// all.
	if least := max(8, (2*c.MaxBody+1<<20-1)>>20); int64(c.RequestMB) < least || c.RequestMB > 1<<20 {
		return fmt.Errorf("--request-mb (KOREDYNE_REQUEST_MB) must be from %d MiB (8, and twice --max-body) to 1048576, not %d", least, c.RequestMB)
	}
	if c.ColdLoads < 1 {
		return fmt.Errorf("--cold-loads (KOREDYNE_COLD_LOADS) must be at least 1, not %d", c.ColdLoads)
	}
	if c.WriteShare < 0 || c.WriteShare >= 1 {
		return fmt.Errorf("--write-share (KOREDYNE_WRITE_SHARE) must be from 0 (writes never wait for reads) to below 1, not %v", c.WriteShare)
	}
	if c.DebugAddr != "" && !loopback(c.DebugAddr) {
		return fmt.Errorf("--debug-addr (KOREDYNE_DEBUG_ADDR) %q must be a loopback host:port (127.0.0.1, [::1] or localhost): profiles show the server's internals", c.DebugAddr)
	}
	if c.WebhookLease < time.Second {
		return fmt.Errorf("--webhook-lease (KOREDYNE_WEBHOOK_LEASE) must be at least 1s, not %v", c.WebhookLease)
	}
	if c.LogFormat != "" && c.LogFormat != "json" && c.LogFormat != "text" {
		return fmt.Errorf("KOREDYNE_LOG_FORMAT must be json or text, not %q", c.LogFormat)
	}
	return nil
}

// splitList reads a comma-separated list, leaving out empty items.
func splitList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// dsn is the database to open: DATABASE_URL, else the SQLite file in the
// data directory. Only serve and migrate create one (create); the other
// commands refuse a data directory that holds none, so a mistyped --data
// is an error, not a new empty database.
func (c *Config) dsn(create bool) (string, error) {
	if c.DatabaseURL != "" {
		return c.DatabaseURL, nil
	}
	file := filepath.Join(c.Data, "koredyne.db")
	if !create {
		if _, err := os.Stat(file); err != nil {
			return "", fmt.Errorf("there is no database in %s (no koredyne.db there): give the --data directory of an existing one, or create one with `koredyne migrate up --data %s`", c.Data, c.Data)
		}
		return file, nil
	}
	if err := os.MkdirAll(c.Data, 0o750); err != nil {
		return "", fmt.Errorf("creating the data directory: %w", err)
	}
	return file, nil
}

// open opens and migrates the configured database; create as for dsn.
func (c *Config) open(ctx context.Context, create bool) (*models.DB, error) {
	dsn, err := c.dsn(create)
	if err != nil {
		return nil, err
	}
	db, err := models.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if c.DatabaseURL != "" {
		db.SetMaxOpenConns(c.DBConns)
		db.SetMaxIdleConns(c.DBConns)
	}
	m, err := migrations.New(db.DB, db.LockFile())
	if err != nil {
		db.Close()
		return nil, err
	}
	if _, err := m.Up(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrating the database: %w", err)
	}
	return db, nil
}

// console returns how serve tells its operator what happened (where it
// listens, the one-time owner token) on stdout: the plain sentence, or
// with --log-format json a JSON line holding the sentence and its values.
func (c *Config) console(w io.Writer) func(msg string, attrs ...any) {
	if c.LogFormat == "json" {
		log := slog.New(slog.NewJSONHandler(w, nil))
		return func(msg string, attrs ...any) { log.Info(msg, attrs...) }
	}
	return func(msg string, _ ...any) { fmt.Fprintln(w, msg) }
}

func (c *Config) logger(w io.Writer) *slog.Logger {
	if c.LogFormat == "json" {
		return slog.New(contextLog{slog.NewJSONHandler(w, nil)})
	}
	return slog.New(contextLog{slog.NewTextHandler(w, nil)})
}

func serve(ctx context.Context, c *Config, cmd *cli.Command, stdout, stderr io.Writer) error {
	if err := args(cmd, 0, ""); err != nil {
		return err
	}
	log := c.logger(stderr)
	say := c.console(stdout)
	// The port first: a busy one fails before a database is seeded and a
	// one-time owner token printed (and lost).
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	mux := http.NewServeMux()
	// pg is the playground in playground mode: no database is opened at
	// all, and CalDAV and feeds are left out.
	var pg *playground
	m := newMetrics(func() int {
		if pg == nil {
			return 0
		}
		return pg.Copies()
	})
	// ready checks what requests need: the database, or nothing for the
	// playground, whose copies are made on demand.
	ready := func(context.Context) error { return nil }
	// api is the GraphQL API's configuration, for the database's store or
	// for each playground copy's.
	live := graph.NewConnections()
	// The database's proposals; each playground copy keeps its own, as
	// its business's ids are every other copy's.
	proposals := graph.NewProposals()
	api := graph.Resolver{Log: log, PublicURL: c.PublicURL, FeedPath: caldav.FeedPath, PagePath: page.Path, Connections: live,
		Observer: hooks{m}, MaxBody: c.MaxBody, MaxDepth: c.MaxDepth, AllowedOrigins: c.AllowedOrigins,
		MaxCost: c.MaxCost, MaxAliases: c.MaxAliases, MaxMutations: c.MaxMutations, MaxResponse: c.MaxResponse}
	// The one memory budget (--cache-mb) of the store's caches, or of
	// every playground copy's together, and the one of requests under way
	// (--request-mb).
	budget := cache.NewBudget(int64(c.CacheMB) << 20)
	requests := inflight.New(int64(c.RequestMB)<<20, requestWait)
	softMemoryLimit(budget.Limit(), requests.Stats().Limit)
	budget.Observe(hooks{m})
	m.Budget(budget)
	m.Requests(requests)
	api.Requests = requests
	if c.Playground {
		pg = newPlayground(c.PlaygroundIdle, c.PlaygroundMax, time.Now, api)
		pg.budget = budget
		pg.onWrite = m.Write
		defer pg.Close()
		go pg.sweep(ctx, time.Minute)
		mux.Handle(graph.Path, pg)
		mux.Handle("GET /{$}", pg.Page(graph.Playground(graph.Path)))
	} else {
		db, err := c.open(ctx, true)
		if err != nil {
			return err
		}
		defer db.Close()
		store := models.NewStore(db, time.Now)
		store.OnWrite = m.Write
		m.Subscriptions(store.Subscriptions)
		store.UseBudget(budget)
		store.LimitColdLoads(c.ColdLoads)
		store.YieldWrites(c.WriteShare)
		m.WritesHeld(store.WritesHeld)
		if len(c.ReplicaURLs) > 0 {
			replicas, err := models.OpenReplicas(ctx, db, c.ReplicaURLs, c.ReplicaLag, c.DBConns, log)
			if err != nil {
				return err
			}
			defer replicas.Close()
			replicas.OnRead = m.Read
			go replicas.Run(ctx)
			store.SetReplicas(replicas)
		}
		if err := bootstrap(ctx, store, c.BootstrapToken, say); err != nil {
			return err
		}
		if c.DatabaseURL != "" { // other servers on the database write too
			listen := c.ListenURL
			if listen == "" {
				listen = c.DatabaseURL
			}
			if err := store.Listen(ctx, listen, log); err != nil {
				return err
			}
		} else {
			go sweepRevoked(ctx, store, live, time.Second, log)
		}

		stop := sendWebhooks(ctx, c, store, m, log)
		defer stop()

		api.Store = store
		api.Proposals = proposals
		calendars := caldav.NewHandler(store, log)
		calendars.Back, calendars.Ahead, calendars.Observer = c.WeeksBack, c.WeeksAhead, hooks{m}
		calendars.Requests = requests
		timetables := page.NewHandler(store, log)
		timetables.Observer = hooks{m}
		dav := reads(store, observeCalDAV(m, calendars))
		mux.Handle(graph.Path, api.Handler()) // which counts its reads itself
		mux.Handle(caldav.Path, dav)
		mux.Handle(caldav.WellKnown, dav)
		mux.Handle(caldav.FeedPath, dav)
		mux.Handle(page.Path, reads(store, timetables))
		mux.Handle("GET /{$}", graph.Playground(graph.Path))
		ready = db.PingContext
	}
	mux.Handle("GET "+graphiql.Prefix, graphiql.Assets)
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := ready(r.Context()); err != nil {
			w.Header().Set("Retry-After", graph.RetryAfter)
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ready\n")
	})
	// Subscriptions outlive WriteTimeout: observe lifts the deadlines for
	// websocket upgrades and event streams.
	srv := &http.Server{
		Handler:           withDeadline(answerTimeout-answerMargin, c.handler(log, m, mux)),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      answerTimeout,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if c.DebugAddr != "" {
		_, stop, err := serveDebug(c.DebugAddr, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	say("listening on http://"+ln.Addr().String(), "url", "http://"+ln.Addr().String(), "graphql", graph.Path, "graphiql", "/")
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	return shutdown(log, srv, live, proposals)
}

// Shutdown waits at most this long for the subscriptions to say goodbye
// (their close handshakes), and this long for requests under way.
const (
	subscriptionsGrace = 1500 * time.Millisecond
	requestsGrace      = 20 * time.Second
	// proposalsGrace is how long a background proposal's search and
	// proof are waited for once stopped (a search stops within 64 of its
	// steps).
	proposalsGrace = 5 * time.Second
)

// shutdown stops taking connections and ends the server: subscriptions
// are closed at once, with a websocket close frame (1001, going away) or
// an event stream's last event, since they would otherwise hold the
// shutdown for as long as their clients stay; requests under way are let
// finish. Websockets are hijacked connections, which srv.Shutdown does not
// wait for, so their close handshakes are waited for here.
// sweepRevoked ends, every period, the subscriptions whose token another
// process revoked. On SQLite nothing tells this server of it (on
// PostgreSQL, Listen hears it at once): `koredyne token revoke` beside a
// running server deletes the token, the server's next request with it
// fails, and the sweep finds the subscriptions it opened before.
func sweepRevoked(ctx context.Context, store *models.Store, live *graph.Connections, period time.Duration, log *slog.Logger) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := store.SweepRevoked(ctx, live.Tokens()); err != nil && ctx.Err() == nil {
				log.Warn("looking for revoked tokens", "err", err)
			}
		}
	}
}

func shutdown(log *slog.Logger, srv *http.Server, live *graph.Connections, proposals *graph.Proposals) error {
	log.Info("shutting down", "subscriptions", live.Count())
	closed := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), subscriptionsGrace)
		defer cancel()
		closed <- live.Close(ctx)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), requestsGrace)
	defer cancel()
	err := srv.Shutdown(ctx)
	if err := <-closed; err != nil {
		log.Warn("shutting down: some subscribers did not answer the close in time", "err", err)
	}
	// Background proposals die with the process (they are previews kept
	// in memory); their searches are stopped rather than left running
	// against a database about to close.
	stopped, cancelStop := context.WithTimeout(context.Background(), proposalsGrace)
	defer cancelStop()
	if err := proposals.Close(stopped); err != nil {
		log.Warn("shutting down: a background proposal did not stop in time", "err", err)
	}
	return err
}

// bootstrap seeds an empty database with a business "demo" holding the gym
// demo, and an owner token: the value of KOREDYNE_BOOTSTRAP_TOKEN when set,
// else a random one printed once.
func bootstrap(ctx context.Context, store *models.Store, token string, say func(msg string, attrs ...any)) error {
	seeded, err := models.AnyBusiness(ctx, store.DB)
	if err != nil || seeded {
		return err
	}
	b, err := demoBusiness(ctx, store, "demo", engine.Gym)
	if err != nil {
		if _, found := models.BusinessBySlug(ctx, store.DB, "demo"); found == nil {
			return nil // another process starting at the same time seeded it
		}
		return err
	}
	token, _, err = models.CreateToken(ctx, store.DB, b.ID, models.Owner, "bootstrap", token)
	if err != nil {
		return err
	}
	say(fmt.Sprintf("created business %q with the gym demo; owner token (shown once): %s", b.Slug, token),
		"business", b.Slug, "owner_token", token)
	return nil
}

// demoBusiness loads a demo into a business, creating it when it does not
// exist.
func demoBusiness(ctx context.Context, store *models.Store, slug string, kind engine.Kind) (*models.Business, error) {
	week := engine.DateOf(store.Now())
	st, ok := demo.ByKind(kind, week)
	if !ok {
		return nil, usageError("no demo of kind %q: use gym, clinic or office", kind)
	}
	b, err := models.BusinessBySlug(ctx, store.DB, slug)
	if engine.ErrorCode(err) == engine.NotFound {
		b, err = models.CreateBusiness(ctx, store.DB, slug, st.Business)
	}
	if err != nil {
		return nil, err
	}
	_, err = store.Write(ctx, b.ID, false, func(e *models.Edit) error {
		e.ReplaceSchedule(st)
		return nil
	})
	return b, err
}

func migrate(ctx context.Context, c *Config, cmd *cli.Command, stdout io.Writer) error {
	if err := args(cmd, 0, ""); err != nil {
		return err
	}
	dsn, err := c.dsn(true)
	if err != nil {
		return err
	}
	db, err := models.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := migrations.New(db.DB, db.LockFile())
	if err != nil {
		return err
	}
	switch cmd.Name {
	case "up":
		names, err := m.Up(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "applied %d migrations %v\n", len(names), names)
	case "down":
		names, err := m.Down(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "rolled back %d migrations %v\n", len(names), names)
	case "status":
		st, err := m.Status(ctx)
		if err != nil {
			return err
		}
		for _, s := range st {
			state := "pending"
			if s.Applied {
				state = "applied"
			}
			fmt.Fprintf(stdout, "%s  %s\n", state, s.Name)
		}
	}
	return nil
}

// token creates a token; a client token names its client (--client), as
// GraphQL's createToken asks, and a staff token may name its staff member.
func token(ctx context.Context, c *Config, cmd *cli.Command, stdout io.Writer) error {
	if err := args(cmd, 0, ""); err != nil {
		return err
	}
	role, err := models.ParseRole(cmd.String("role"))
	if err != nil {
		return usageError("--role: %v", err)
	}
	client, staff := cmd.Int64("client"), cmd.Int64("staff")
	switch {
	case role == models.ClientRole && client == 0:
		return usageError("a client token needs --client ID: the client it books for")
	case role != models.ClientRole && cmd.IsSet("client"):
		return usageError("--client applies only to --role client")
	case role != models.StaffRole && cmd.IsSet("staff"):
		return usageError("--staff applies only to --role staff")
	}
	db, err := c.open(ctx, false)
	if err != nil {
		return err
	}
	defer db.Close()
	b, err := models.BusinessBySlug(ctx, db, cmd.String("business"))
	if err != nil {
		return err
	}
	if client != 0 {
		found, err := models.ClientsByID(ctx, db, b.ID, []int64{client})
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return fmt.Errorf("business %q has no client %d", b.Slug, client)
		}
	}
	if staff != 0 {
		sn, err := models.NewStore(db, time.Now).Snapshot(ctx, b.ID, -1)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(sn.State.Staff, func(s engine.Staff) bool { return s.ID == staff }) {
			return fmt.Errorf("business %q has no staff member %d", b.Slug, staff)
		}
	}
	t, _, err := models.CreateScopedToken(ctx, db, b.ID, role, cmd.String("name"), "", client, staff)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, t)
	return nil
}

// listTokens lists a business's API tokens, oldest first: the id that
// token revoke takes, the role, the name and whom a client or staff token
// acts for. Secrets are never stored, so never shown.
func listTokens(ctx context.Context, c *Config, cmd *cli.Command, stdout io.Writer) error {
	if err := args(cmd, 0, ""); err != nil {
		return err
	}
	db, err := c.open(ctx, false)
	if err != nil {
		return err
	}
	defer db.Close()
	b, err := models.BusinessBySlug(ctx, db, cmd.String("business"))
	if err != nil {
		return err
	}
	tokens, err := models.Tokens(ctx, db, b.ID)
	if err != nil {
		return err
	}
	if len(tokens) == 0 {
		fmt.Fprintf(stdout, "business %q has no API tokens\n", b.Slug)
		return nil
	}
	var clientIDs []int64
	staffIDs := false
	for _, t := range tokens {
		if t.ClientID != 0 {
			clientIDs = append(clientIDs, t.ClientID)
		}
		staffIDs = staffIDs || t.StaffID != 0
	}
	clients := map[int64]engine.Client{}
	if len(clientIDs) > 0 {
		if clients, err = models.ClientsByID(ctx, db, b.ID, clientIDs); err != nil {
			return err
		}
	}
	staff := map[int64]string{}
	if staffIDs {
		sn, err := models.NewStore(db, time.Now).Snapshot(ctx, b.ID, -1)
		if err != nil {
			return err
		}
		for _, s := range sn.State.Staff {
			staff[s.ID] = s.Name
		}
	}
	var table strings.Builder
	w := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tROLE\tNAME\tFOR")
	for _, t := range tokens {
		var who string
		switch {
		case t.ClientID != 0:
			who = fmt.Sprintf("client %d %s", t.ClientID, clients[t.ClientID].Name)
		case t.StaffID != 0:
			who = fmt.Sprintf("staff %d %s", t.StaffID, staff[t.StaffID])
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", t.ID, t.Role, t.Name, strings.TrimSpace(who))
	}
	w.Flush()
	for _, line := range strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n") {
		if _, err := fmt.Fprintln(stdout, strings.TrimRight(line, " ")); err != nil { // no padding after the last column
			return err
		}
	}
	return nil
}

// revokeToken revokes a business's API token by its id, as GraphQL's
// revokeToken does, through the store: requests with it fail from now on,
// and on PostgreSQL every server hears of it and ends the subscriptions
// opened with it at once (on SQLite a running server finds them within a
// second: sweepRevoked).
func revokeToken(ctx context.Context, c *Config, cmd *cli.Command, stdout io.Writer) error {
	if err := args(cmd, 1, "a token's id (token list shows them)"); err != nil {
		return err
	}
	id, err := strconv.ParseInt(cmd.Args().First(), 10, 64)
	if err != nil || id <= 0 {
		return usageError("%q is not a token's id: token list shows them", cmd.Args().First())
	}
	db, err := c.open(ctx, false)
	if err != nil {
		return err
	}
	defer db.Close()
	b, err := models.BusinessBySlug(ctx, db, cmd.String("business"))
	if err != nil {
		return err
	}
	t, err := models.NewStore(db, time.Now).RevokeToken(ctx, b.ID, id)
	if err != nil {
		return err
	}
	name := ""
	if t.Name != "" {
		name = fmt.Sprintf(" %q", t.Name)
	}
	fmt.Fprintf(stdout, "revoked token %d%s (%s) of business %q\n", t.ID, name, t.Role, b.Slug)
	return nil
}

func loadDemo(ctx context.Context, c *Config, cmd *cli.Command, stdout io.Writer) error {
	if err := args(cmd, 1, "a kind: gym, clinic or office"); err != nil {
		return err
	}
	kind := cmd.Args().First()
	db, err := c.open(ctx, false)
	if err != nil {
		return err
	}
	defer db.Close()
	store := models.NewStore(db, time.Now)
	b, err := demoBusiness(ctx, store, cmd.String("business"), engine.Kind(kind))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "loaded the %s demo into business %q\n", kind, b.Slug)
	return nil
}

// softMemoryLimit has the Go runtime collect garbage harder as the process
// nears the cache budget plus a quarter, and the budget of requests under
// way, unless GOMEMLIMIT sets a limit of its own. Without it the heap grows
// to twice what is live before a collection (GOGC=100): a full 256 MiB
// cache budget went with a process of 600 MiB and more.
func softMemoryLimit(cache, requests int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(cache + cache/4 + requests)
	}
}

// requestWait is how long a request waits for its bytes of the request
// budget before it is answered 503: long enough for the requests under
// way to finish, short enough that a client is told to come back rather
// than left hanging.
const requestWait = 2 * time.Second
