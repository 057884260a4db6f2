package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // business time zones load on machines without a zone database

	"github.com/koredyne/schedule/caldav"
	"github.com/koredyne/schedule/caldav/page"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/graph/graphiql"
	"github.com/koredyne/schedule/migrations"
	"github.com/koredyne/schedule/models"
)

const usage = `usage:
  koredyne serve [--addr 127.0.0.1:8080] [--data ./data]
  koredyne migrate up|down|status
  koredyne token create --business SLUG --role owner|manager|front_desk|staff|read_only [--name NAME]
  koredyne demo load gym|clinic|office --business SLUG
  koredyne export json|ics --business SLUG [--out FILE]
  koredyne import json FILE [--business SLUG]
  koredyne import koredyne FILE --business SLUG [--create --time-zone ZONE]
                                [--replace] [--dry-run] [--strict]
  koredyne import ics FILE --business SLUG [--dry-run] [--expand-until DATE]
                           [--default-staff NAME] [--default-room NAME]

Every command takes --data DIR (SQLite at DIR/koredyne.db, the default) or
DATABASE_URL=postgres://… in the environment.
`

// Main runs the command in args and returns the exit status. Tests call it
// directly; getenv stands in for the environment.
func Main(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(ctx, args[1:], getenv, stdout, stderr)
	case "migrate":
		err = migrate(ctx, args[1:], getenv, stdout)
	case "token":
		err = token(ctx, args[1:], getenv, stdout)
	case "demo":
		err = loadDemo(ctx, args[1:], getenv, stdout)
	case "export":
		err = export(ctx, args[1:], getenv, stdout)
	case "import":
		err = importCmd(ctx, args[1:], getenv, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = usageError("unknown command %q", args[0])
	}
	var ue usageErr
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "koredyne: %v\n\n%s", err, usage)
		return 2
	default:
		fmt.Fprintf(stderr, "koredyne: %v\n", err)
		return 1
	}
}

type usageErr struct{ msg string }

func (e usageErr) Error() string { return e.msg }

func usageError(format string, args ...any) error { return usageErr{fmt.Sprintf(format, args...)} }

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
	// without a token) may spend, with bursts of RateBurst; a plain request
	// is a unit, heavier ones more (see limiter); 0: no limit.
	RateLimit float64
	RateBurst int
	// MaxBody is the largest request body accepted, in bytes.
	MaxBody int64
	// MaxDepth is how deep a GraphQL query may nest its selections.
	MaxDepth int
	// MaxCost, MaxAliases, MaxMutations and MaxResponse bound what one
	// GraphQL request may ask for (see graph.Resolver).
	MaxCost, MaxAliases, MaxMutations, MaxResponse int
}

func (c *Config) flags(name string, getenv func(string) string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.Addr, "addr", envOr(getenv, "KOREDYNE_ADDR", "127.0.0.1:8080"), "address to listen on")
	fs.StringVar(&c.Data, "data", envOr(getenv, "KOREDYNE_DATA", "data"), "directory of the SQLite database")
	fs.StringVar(&c.PublicURL, "public-url", getenv("KOREDYNE_PUBLIC_URL"), "where clients reach the server, for feed URLs")
	fs.IntVar(&c.WeeksBack, "calendar-weeks-back", envInt(getenv, "KOREDYNE_CALENDAR_WEEKS_BACK", 8), "weeks before today that calendars list")
	fs.IntVar(&c.WeeksAhead, "calendar-weeks-ahead", envInt(getenv, "KOREDYNE_CALENDAR_WEEKS_AHEAD", 52), "weeks after today that calendars list")
	fs.IntVar(&c.DBConns, "db-conns", envInt(getenv, "KOREDYNE_DB_CONNS", 20), "most PostgreSQL connections this process opens")
	fs.Func("allowed-origins", "comma-separated browser origins that may call the API", func(v string) error {
		c.AllowedOrigins = splitList(v)
		return nil
	})
	c.AllowedOrigins = splitList(getenv("KOREDYNE_ALLOWED_ORIGINS"))
	fs.BoolVar(&c.Playground, "playground", getenv("KOREDYNE_PLAYGROUND") == "true", "serve every visitor a private in-memory demo")
	fs.DurationVar(&c.PlaygroundIdle, "playground-idle", envDuration(getenv, "KOREDYNE_PLAYGROUND_IDLE", time.Hour), "how long an unused playground copy is kept")
	fs.IntVar(&c.PlaygroundMax, "playground-max", envInt(getenv, "KOREDYNE_PLAYGROUND_MAX", 200), "most playground copies kept")
	fs.Float64Var(&c.RateLimit, "rate-limit", envFloat(getenv, "KOREDYNE_RATE_LIMIT", 20), "units of work per second per token (0: no limit)")
	fs.IntVar(&c.RateBurst, "rate-burst", envInt(getenv, "KOREDYNE_RATE_BURST", 1000), "units of work one token may spend at once")
	fs.Int64Var(&c.MaxBody, "max-body", int64(envInt(getenv, "KOREDYNE_MAX_BODY", 10<<20)), "largest request body in bytes")
	fs.IntVar(&c.MaxDepth, "max-depth", envInt(getenv, "KOREDYNE_MAX_DEPTH", 12), "deepest nesting of a GraphQL query")
	fs.IntVar(&c.MaxCost, "max-cost", envInt(getenv, "KOREDYNE_MAX_COST", graph.DefaultMaxCost), "most values a GraphQL answer may hold by the cost model")
	fs.IntVar(&c.MaxAliases, "max-aliases", envInt(getenv, "KOREDYNE_MAX_ALIASES", graph.DefaultMaxAliases), "most aliased fields in a GraphQL query")
	fs.IntVar(&c.MaxMutations, "max-mutations", envInt(getenv, "KOREDYNE_MAX_MUTATIONS", graph.DefaultMaxMutations), "most mutations in one GraphQL request")
	fs.IntVar(&c.MaxResponse, "max-response", envInt(getenv, "KOREDYNE_MAX_RESPONSE", graph.DefaultMaxResponse), "largest GraphQL answer in bytes")
	c.DatabaseURL = getenv("DATABASE_URL")
	c.BootstrapToken = getenv("KOREDYNE_BOOTSTRAP_TOKEN")
	c.LogFormat = getenv("KOREDYNE_LOG_FORMAT")
	return fs
}

// Validate checks the configuration before anything is opened.
func (c *Config) Validate() error {
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		return fmt.Errorf("DATABASE_URL must be a postgres:// URL; leave it unset for the embedded SQLite database")
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("--addr %q: %w", c.Addr, err)
	}
	if c.WeeksBack < 0 || c.WeeksAhead < 1 || c.WeeksBack+c.WeeksAhead > 104 {
		return fmt.Errorf("calendars list 0 or more weeks back and 1 or more ahead, 104 in all at most")
	}
	if c.DBConns < 1 {
		return fmt.Errorf("--db-conns must be at least 1")
	}
	if c.PublicURL != "" && !strings.HasPrefix(c.PublicURL, "http://") && !strings.HasPrefix(c.PublicURL, "https://") {
		return fmt.Errorf("--public-url must start with http:// or https://")
	}
	for _, o := range c.AllowedOrigins {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
			return fmt.Errorf("--allowed-origins: %q is not an origin like https://desk.example.com", o)
		}
	}
	if c.PlaygroundIdle < time.Minute || c.PlaygroundMax < 1 {
		return fmt.Errorf("playground copies are kept a minute or more, and at least one")
	}
	if c.RateLimit < 0 || (c.RateLimit > 0 && c.RateBurst < 1) {
		return fmt.Errorf("--rate-limit must be 0 (off) or more, with a --rate-burst of at least 1")
	}
	if c.MaxBody < 1<<10 || c.MaxDepth < 2 {
		return fmt.Errorf("--max-body must be at least 1024 bytes and --max-depth at least 2")
	}
	if c.MaxCost < 1000 || c.MaxAliases < 1 || c.MaxMutations < 1 || c.MaxResponse < 1<<16 {
		return fmt.Errorf("--max-cost must be at least 1000, --max-aliases and --max-mutations at least 1 and --max-response at least 65536 bytes")
	}
	if c.LogFormat != "" && c.LogFormat != "json" && c.LogFormat != "text" {
		return fmt.Errorf("KOREDYNE_LOG_FORMAT must be json or text, not %q", c.LogFormat)
	}
	return nil
}

func envInt(getenv func(string) string, key string, def int) int {
	if v, err := strconv.Atoi(getenv(key)); err == nil {
		return v
	}
	return def
}

func envFloat(getenv func(string) string, key string, def float64) float64 {
	if v, err := strconv.ParseFloat(getenv(key), 64); err == nil {
		return v
	}
	return def
}

func envDuration(getenv func(string) string, key string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(getenv(key)); err == nil {
		return v
	}
	return def
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

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

func parse(name string, args []string, getenv func(string) string) (*Config, *flag.FlagSet, error) {
	c := &Config{}
	fs := c.flags(name, getenv)
	for _, f := range []string{"business", "role", "name", "out", "expand-until", "default-staff", "default-room", "time-zone"} {
		fs.String(f, "", "")
	}
	for _, f := range []string{"dry-run", "create", "replace", "strict"} {
		fs.Bool(f, false, "")
	}
	// Flags may follow positional arguments ("demo load gym --business x"):
	// parse flags, set the next positional aside, repeat.
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, usageError("%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	fs.Parse(positional) // holds no flags: it only makes fs.Args the positionals
	if err := c.Validate(); err != nil {
		return nil, nil, usageError("%v", err)
	}
	return c, fs, nil
}

// open opens and migrates the configured database.
func (c *Config) open(ctx context.Context) (*models.DB, error) {
	dsn := c.DatabaseURL
	if dsn == "" {
		if err := os.MkdirAll(c.Data, 0o750); err != nil {
			return nil, fmt.Errorf("creating the data directory: %w", err)
		}
		dsn = filepath.Join(c.Data, "koredyne.db")
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

func (c *Config) logger(w io.Writer) *slog.Logger {
	if c.LogFormat == "json" {
		return slog.New(contextLog{slog.NewJSONHandler(w, nil)})
	}
	return slog.New(contextLog{slog.NewTextHandler(w, nil)})
}

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, _, err := parse("serve", args, getenv)
	if err != nil {
		return err
	}
	log := c.logger(stderr)
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
	api := graph.Resolver{Log: log, PublicURL: c.PublicURL, FeedPath: caldav.FeedPath, PagePath: page.Path, Connections: live,
		Observer: hooks{m}, MaxBody: c.MaxBody, MaxDepth: c.MaxDepth, AllowedOrigins: c.AllowedOrigins,
		MaxCost: c.MaxCost, MaxAliases: c.MaxAliases, MaxMutations: c.MaxMutations, MaxResponse: c.MaxResponse}
	if c.Playground {
		pg = newPlayground(c.PlaygroundIdle, c.PlaygroundMax, time.Now, api)
		pg.onWrite = m.Write
		defer pg.Close()
		go pg.sweep(ctx, time.Minute)
		mux.Handle(graph.Path, pg)
		mux.Handle("GET /{$}", pg.Page(graph.Playground(graph.Path)))
	} else {
		db, err := c.open(ctx)
		if err != nil {
			return err
		}
		defer db.Close()
		store := models.NewStore(db, time.Now)
		store.OnWrite = m.Write
		if err := bootstrap(ctx, store, c.BootstrapToken, stdout); err != nil {
			return err
		}
		if c.DatabaseURL != "" { // other servers on the database write too
			if err := store.Listen(ctx, c.DatabaseURL, log); err != nil {
				return err
			}
		}

		api.Store = store
		calendars := caldav.NewHandler(store, log)
		calendars.Back, calendars.Ahead, calendars.Observer = c.WeeksBack, c.WeeksAhead, hooks{m}
		timetables := page.NewHandler(store, log)
		timetables.Observer = hooks{m}
		dav := observeCalDAV(m, calendars)
		mux.Handle(graph.Path, api.Handler())
		mux.Handle(caldav.Path, dav)
		mux.Handle(caldav.WellKnown, dav)
		mux.Handle(caldav.FeedPath, dav)
		mux.Handle(page.Path, timetables)
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
		Handler:           withDeadline(answerTimeout-answerMargin, c.handler(log, mux)),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      answerTimeout,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "listening on http://%s (GraphQL at %s, GraphiQL at /)\n", ln.Addr(), graph.Path)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	return shutdown(log, srv, live)
}

// Shutdown waits at most this long for the subscriptions to say goodbye
// (their close handshakes), and this long for requests under way.
const (
	subscriptionsGrace = 1500 * time.Millisecond
	requestsGrace      = 20 * time.Second
)

// shutdown stops taking connections and ends the server: subscriptions
// are closed at once, with a websocket close frame (1001, going away) or
// an event stream's last event, since they would otherwise hold the
// shutdown for as long as their clients stay; requests under way are let
// finish. Websockets are hijacked connections, which srv.Shutdown does not
// wait for, so their close handshakes are waited for here.
func shutdown(log *slog.Logger, srv *http.Server, live *graph.Connections) error {
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
	return err
}

// bootstrap seeds an empty database with a business "demo" holding the gym
// demo, and an owner token: the value of KOREDYNE_BOOTSTRAP_TOKEN when set,
// else a random one printed once.
func bootstrap(ctx context.Context, store *models.Store, token string, stdout io.Writer) error {
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
	fmt.Fprintf(stdout, "created business %q with the gym demo; owner token (shown once): %s\n", b.Slug, token)
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

func migrate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	c, fs, err := parse("migrate", args, getenv)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError("migrate needs up, down or status")
	}
	dsn := c.DatabaseURL
	if dsn == "" {
		if err := os.MkdirAll(c.Data, 0o750); err != nil {
			return err
		}
		dsn = filepath.Join(c.Data, "koredyne.db")
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
	switch fs.Arg(0) {
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
	default:
		return usageError("migrate needs up, down or status, not %q", fs.Arg(0))
	}
	return nil
}

func token(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	c, fs, err := parse("token", args, getenv)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) != "create" {
		return usageError("token needs create")
	}
	slug, roleName, name := fs.Lookup("business").Value.String(), fs.Lookup("role").Value.String(), fs.Lookup("name").Value.String()
	if slug == "" || roleName == "" {
		return usageError("token create needs --business and --role")
	}
	role, err := models.ParseRole(roleName)
	if err != nil {
		return usageError("%v", err)
	}
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	b, err := models.BusinessBySlug(ctx, db, slug)
	if err != nil {
		return err
	}
	t, _, err := models.CreateToken(ctx, db, b.ID, role, name, "")
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, t)
	return nil
}

func loadDemo(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	c, fs, err := parse("demo", args, getenv)
	if err != nil {
		return err
	}
	slug := fs.Lookup("business").Value.String()
	if fs.NArg() != 2 || fs.Arg(0) != "load" || slug == "" {
		return usageError("demo load needs a kind (gym, clinic or office) and --business SLUG")
	}
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	store := models.NewStore(db, time.Now)
	b, err := demoBusiness(ctx, store, slug, engine.Kind(fs.Arg(1)))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "loaded the %s demo into business %q\n", fs.Arg(1), b.Slug)
	return nil
}
