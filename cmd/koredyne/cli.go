package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/webhook"
)

// Main runs the command in args and returns the exit status: 0, 1 when
// the command failed, 2 for a usage error (an unknown command or flag, a
// bad flag or environment value). Tests call it directly; getenv stands in
// for the environment.
func Main(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return (&app{getenv: getenv, stdout: stdout, stderr: stderr}).main(ctx, args)
}

// main runs the command in args as Main does, on a's configuration: the
// flags and the environment fill it in, and leave what is not theirs as
// the caller set it (a test's Config.RateClock).
func (a *app) main(ctx context.Context, args []string) int {
	stderr := a.stderr
	root := a.commands()
	err := root.Run(ctx, append([]string{"koredyne"}, args...))
	var ue usageErr
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue) || !a.ran:
		// Errors before the action ran are the command line's or the
		// environment's (urfave/cli's own parse errors).
		name := "koredyne"
		if ue.cmd != "" {
			name = ue.cmd
		}
		fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for usage.\n", name, err, name)
		return 2
	default:
		fmt.Fprintf(stderr, "koredyne: %v\n", err)
		return 1
	}
}

type usageErr struct{ msg, cmd string }

func (e usageErr) Error() string { return e.msg }

func usageError(format string, args ...any) error { return usageErr{msg: fmt.Sprintf(format, args...)} }

// app is one run of the command line: its environment and output, and
// the configuration its flags fill in.
type app struct {
	getenv         func(string) string
	stdout, stderr io.Writer
	c              Config
	// badEnv are the environment values that did not parse, each naming
	// its variable; the command refuses to run with any.
	badEnv []error
	ran    bool
}

// env is an environment variable as a flag's source: a value that does
// not parse is recorded with the variable's name instead of being used,
// so a typo is an error rather than a silent default.
type env struct {
	a     *app
	key   string
	check func(string) error
}

func (e env) Lookup() (string, bool) {
	v := e.a.getenv(e.key)
	if v == "" {
		return "", false
	}
	if e.check != nil {
		if err := e.check(v); err != nil {
			e.a.badEnv = append(e.a.badEnv, fmt.Errorf("%s=%q: %v", e.key, v, err))
			return "", false
		}
	}
	return v, true
}
func (e env) String() string   { return "environment variable " + e.key }
func (e env) GoString() string { return "env{" + e.key + "}" }
func (e env) IsFromEnv() bool  { return true }
func (e env) Key() string      { return e.key }

func (a *app) src(key string, check func(string) error) cli.ValueSourceChain {
	return cli.NewValueSourceChain(env{a, key, check})
}

func wholeNumber(v string) error {
	if _, err := strconv.Atoi(v); err != nil {
		return errors.New("not a whole number")
	}
	return nil
}

func byteCount(v string) error {
	if _, err := strconv.ParseInt(v, 10, 64); err != nil {
		return errors.New("not a whole number of bytes (10 MiB is 10485760)")
	}
	return nil
}

func number(v string) error {
	if _, err := strconv.ParseFloat(v, 64); err != nil {
		return errors.New("not a number")
	}
	return nil
}

func duration(v string) error {
	if _, err := time.ParseDuration(v); err != nil {
		return errors.New("not a duration such as 90s, 30m or 2h")
	}
	return nil
}

func boolean(v string) error {
	if _, err := strconv.ParseBool(v); err != nil {
		return errors.New("not true or false (or 1 or 0)")
	}
	return nil
}

func oneOf(values ...string) func(string) error {
	return func(v string) error {
		for _, ok := range values {
			if v == ok {
				return nil
			}
		}
		return fmt.Errorf("must be %s", strings.Join(values, " or "))
	}
}

// dbFlags are the flags of every command that opens the database.
func (a *app) dbFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "data", Value: "data", Destination: &a.c.Data, Sources: a.src("KOREDYNE_DATA", nil),
			Usage: "directory of the SQLite database (DIR/koredyne.db); ignored when DATABASE_URL names a PostgreSQL database"},
		&cli.IntFlag{Name: "db-conns", Value: 20, Destination: &a.c.DBConns, Sources: a.src("KOREDYNE_DB_CONNS", wholeNumber),
			Usage: "most PostgreSQL connections this process opens"},
	}
}

// serveFlags are serve's own flags.
func (a *app) serveFlags() []cli.Flag {
	c := &a.c
	return []cli.Flag{
		&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", Destination: &c.Addr, Sources: a.src("KOREDYNE_ADDR", nil),
			Usage: "address to listen on (host:port; port 0 picks a free one)"},
		&cli.StringFlag{Name: "public-url", Destination: &c.PublicURL, Sources: a.src("KOREDYNE_PUBLIC_URL", nil),
			Usage: "where clients reach the server (https://…), for feed and timetable URLs"},
		&cli.IntFlag{Name: "calendar-weeks-back", Value: 8, Destination: &c.WeeksBack, Sources: a.src("KOREDYNE_CALENDAR_WEEKS_BACK", wholeNumber),
			Usage: "weeks before today that calendars (CalDAV, .ics feeds) list"},
		&cli.IntFlag{Name: "calendar-weeks-ahead", Value: 52, Destination: &c.WeeksAhead, Sources: a.src("KOREDYNE_CALENDAR_WEEKS_AHEAD", wholeNumber),
			Usage: "weeks after today that calendars list"},
		&cli.StringFlag{Name: "allowed-origins", Sources: a.src("KOREDYNE_ALLOWED_ORIGINS", nil),
			Usage:  "comma-separated browser origins (https://desk.example.com) whose pages may call the API",
			Action: func(_ context.Context, _ *cli.Command, v string) error { c.AllowedOrigins = splitList(v); return nil }},
		&cli.BoolFlag{Name: "playground", Destination: &c.Playground, Sources: a.src("KOREDYNE_PLAYGROUND", boolean),
			Usage: "serve every visitor a private in-memory demo instead of the database"},
		&cli.DurationFlag{Name: "playground-idle", Value: time.Hour, Destination: &c.PlaygroundIdle, Sources: a.src("KOREDYNE_PLAYGROUND_IDLE", duration),
			Usage: "how long an unused playground copy is kept"},
		&cli.IntFlag{Name: "playground-max", Value: 200, Destination: &c.PlaygroundMax, Sources: a.src("KOREDYNE_PLAYGROUND_MAX", wholeNumber),
			Usage: "most playground copies kept"},
		&cli.FloatFlag{Name: "rate-limit", Value: 20, Destination: &c.RateLimit, Sources: a.src("KOREDYNE_RATE_LIMIT", number),
			Usage: "units of work a second per token or address (0: no limit)"},
		&cli.IntFlag{Name: "rate-burst", Value: 1000, Destination: &c.RateBurst, Sources: a.src("KOREDYNE_RATE_BURST", wholeNumber),
			Usage: "units of work one token may spend at once"},
		&cli.Int64Flag{Name: "max-body", Value: 10 << 20, Destination: &c.MaxBody, Sources: a.src("KOREDYNE_MAX_BODY", byteCount),
			Usage: "largest request body, in bytes"},
		&cli.IntFlag{Name: "max-depth", Value: 12, Destination: &c.MaxDepth, Sources: a.src("KOREDYNE_MAX_DEPTH", wholeNumber),
			Usage: "deepest nesting of a GraphQL query"},
		&cli.IntFlag{Name: "max-cost", Value: graph.DefaultMaxCost, Destination: &c.MaxCost, Sources: a.src("KOREDYNE_MAX_COST", wholeNumber),
			Usage: "most values a GraphQL answer may hold by the cost model"},
		&cli.IntFlag{Name: "max-aliases", Value: graph.DefaultMaxAliases, Destination: &c.MaxAliases, Sources: a.src("KOREDYNE_MAX_ALIASES", wholeNumber),
			Usage: "most aliased fields in a GraphQL query"},
		&cli.IntFlag{Name: "max-mutations", Value: graph.DefaultMaxMutations, Destination: &c.MaxMutations, Sources: a.src("KOREDYNE_MAX_MUTATIONS", wholeNumber),
			Usage: "most mutations in one GraphQL request"},
		&cli.IntFlag{Name: "max-response", Value: graph.DefaultMaxResponse, Destination: &c.MaxResponse, Sources: a.src("KOREDYNE_MAX_RESPONSE", wholeNumber),
			Usage: "largest GraphQL answer, in bytes"},
		&cli.IntFlag{Name: "cache-mb", Value: 256, Destination: &c.CacheMB, Sources: a.src("KOREDYNE_CACHE_MB", wholeNumber),
			Usage: "memory budget, in MiB, of what is kept computed (snapshots, calendars, answers); the least recently used businesses go first"},
		&cli.IntFlag{Name: "cold-loads", Value: runtime.GOMAXPROCS(0), HideDefault: true, Destination: &c.ColdLoads, Sources: a.src("KOREDYNE_COLD_LOADS", wholeNumber),
			Usage: "most businesses loaded from the database at once; requests answered from memory never wait (default: the CPUs Go uses)"},
		&cli.FloatFlag{Name: "write-share", Value: models.DefaultWriteShare, Destination: &c.WriteShare, Sources: a.src("KOREDYNE_WRITE_SHARE", number),
			Usage: "share of the cores' time writes may take together while reads are being served (0: writes never wait for reads)"},
		&cli.StringFlag{Name: "debug-addr", Destination: &c.DebugAddr, Sources: a.src("KOREDYNE_DEBUG_ADDR", nil),
			Usage: "loopback host:port serving Go's profiles at /debug/pprof/ (off when empty)"},
		&cli.BoolFlag{Name: "webhook-allow-private", Destination: &c.WebhookAllowPrivate, Sources: a.src("KOREDYNE_WEBHOOK_ALLOW_PRIVATE", boolean),
			Usage: "let webhook endpoints be http:// and loopback or private addresses (development and tests only)"},
		&cli.DurationFlag{Name: "webhook-lease", Value: webhook.Lease, Destination: &c.WebhookLease, Sources: a.src("KOREDYNE_WEBHOOK_LEASE", duration),
			Usage: "how long a server holds an endpoint's queue without renewing it: how soon another server takes over a dead one's"},
		&cli.StringFlag{Name: "listen-url", Destination: &c.ListenURL, Sources: a.src("KOREDYNE_LISTEN_URL", nil),
			Usage: "postgres:// URL for the live updates' LISTEN session, when DATABASE_URL goes through a transaction pooler (default: DATABASE_URL)"},
		&cli.StringSliceFlag{Name: "replica-url", Sources: a.src("KOREDYNE_REPLICA_URLS", nil),
			Usage: "postgres:// URL of a streaming replica for reads that tolerate a little lag (repeatable; the variable takes a comma-separated list)",
			Action: func(_ context.Context, _ *cli.Command, v []string) error {
				c.ReplicaURLs = splitList(strings.Join(v, ","))
				return nil
			}},
		&cli.DurationFlag{Name: "replica-max-lag", Value: 5 * time.Second, Destination: &c.ReplicaLag, Sources: a.src("KOREDYNE_REPLICA_MAX_LAG", duration),
			Usage: "how far a replica may be behind the primary and still be read"},
		&cli.StringFlag{Name: "log-format", Value: "text", Destination: &c.LogFormat, Sources: a.src("KOREDYNE_LOG_FORMAT", oneOf("text", "json")),
			Usage: "text, or json for one JSON object a line (every line serve writes)"},
	}
}

// action wraps a command's action: the environment is checked first (a
// value that did not parse refuses the command), then the configuration,
// and usage errors learn the command's name.
func (a *app) action(serve bool, run func(context.Context, *cli.Command) error) cli.ActionFunc {
	return func(ctx context.Context, cmd *cli.Command) error {
		if len(a.badEnv) > 0 {
			return usageErr{msg: errors.Join(a.badEnv...).Error(), cmd: cmd.FullName()}
		}
		a.c.DatabaseURL = a.getenv("DATABASE_URL")
		if serve {
			a.c.BootstrapToken = a.getenv("KOREDYNE_BOOTSTRAP_TOKEN")
		}
		if err := a.c.Validate(serve); err != nil {
			return usageErr{msg: err.Error(), cmd: cmd.FullName()}
		}
		a.ran = true
		err := run(ctx, cmd)
		var ue usageErr
		if errors.As(err, &ue) && ue.cmd == "" {
			ue.cmd = cmd.FullName()
			return ue
		}
		return err
	}
}

// group is the action of a command that only holds others.
func group(names string) cli.ActionFunc {
	return func(_ context.Context, cmd *cli.Command) error {
		if cmd.Args().Present() {
			return usageErr{msg: fmt.Sprintf("needs %s, not %q", names, cmd.Args().First()), cmd: cmd.FullName()}
		}
		return usageErr{msg: "needs " + names, cmd: cmd.FullName()}
	}
}

// args checks a command's positional arguments: exactly n.
func args(cmd *cli.Command, n int, what string) error {
	if cmd.Args().Len() != n {
		if n == 0 {
			return usageError("takes no arguments, not %q", cmd.Args().Slice())
		}
		return usageError("needs %s", what)
	}
	return nil
}

// onUsageError names the command a flag error belongs to, in the
// command line's words.
func onUsageError(_ context.Context, cmd *cli.Command, err error, _ bool) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = fmt.Sprintf("unknown flag --%s (this command's flags are in --help)", strings.TrimLeft(name, "-"))
	}
	return usageErr{msg: msg, cmd: cmd.FullName()}
}

// flagList writes flags as --help lists a command's own, for the help of a
// command that only holds others which take them.
func flagList(flags []cli.Flag) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, f := range flags {
		fmt.Fprintln(w, cli.FlagStringer(f))
	}
	w.Flush()
	return strings.TrimRight(b.String(), "\n")
}

// version is the module's version and the commit it was built from.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return versionOf(bi)
}

// versionOf reads the version from a build's information.
func versionOf(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return v + " (no commit recorded)"
	}
	extra := ""
	if modified {
		extra = ", modified"
	}
	if at != "" {
		extra += ", " + at
	}
	return fmt.Sprintf("%s (commit %s%s)", v, rev, extra)
}

func (a *app) commands() *cli.Command {
	db := a.dbFlags
	with := func(fs ...[]cli.Flag) []cli.Flag {
		var out []cli.Flag
		for _, f := range fs {
			out = append(out, f...)
		}
		return out
	}
	business := func(required bool, usage string) cli.Flag {
		return &cli.StringFlag{Name: "business", Required: required, Usage: usage}
	}
	dryRun := &cli.BoolFlag{Name: "dry-run", Usage: "check and report, write nothing"}
	root := &cli.Command{
		Name:  "koredyne",
		Usage: "Koredyne Schedule: timetables for gyms, clinics and business centres",
		Description: "Every command that opens the database takes --data DIR (SQLite in DIR/koredyne.db, the default)\n" +
			"or DATABASE_URL=postgres://… in the environment, and these flags after its name. Only serve and\n" +
			"migrate create a database.\n\n" + flagList(db()),
		Version:         version(),
		Writer:          a.stdout,
		ErrWriter:       a.stderr,
		HideHelpCommand: true,
		ExitErrHandler:  func(context.Context, *cli.Command, error) {},
		Action: func(_ context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usageError("unknown command %q", cmd.Args().First())
			}
			return usageError("no command given")
		},
		Commands: []*cli.Command{
			{
				Name:      "serve",
				Usage:     "run the server: GraphQL, CalDAV, .ics feeds and timetable pages",
				UsageText: "koredyne serve [--addr 127.0.0.1:8080] [--data ./data] [flags]",
				Description: "The first start on an empty database seeds a business \"demo\" with the gym demo and\n" +
					"an owner token: KOREDYNE_BOOTSTRAP_TOKEN when set, else a random one printed once.",
				Flags:  with(a.serveFlags(), db()),
				Action: a.action(true, func(ctx context.Context, cmd *cli.Command) error { return serve(ctx, &a.c, cmd, a.stdout, a.stderr) }),
			},
			{
				Name:      "migrate",
				Usage:     "manage the database schema (creates the database when there is none)",
				UsageText: "koredyne migrate up|down|status [--data DIR] [--db-conns N]",
				Description: "Each of up, down and status takes (after its name, as in koredyne migrate up --data DIR):\n\n" +
					flagList(db()),
				Action: group("up, down or status"),
				Commands: []*cli.Command{
					{Name: "up", Usage: "apply every pending migration", Flags: db(),
						Action: a.action(false, func(ctx context.Context, cmd *cli.Command) error { return migrate(ctx, &a.c, cmd, a.stdout) })},
					{Name: "down", Usage: "roll back the last migration", Flags: db(),
						Action: a.action(false, func(ctx context.Context, cmd *cli.Command) error { return migrate(ctx, &a.c, cmd, a.stdout) })},
					{Name: "status", Usage: "list the migrations, applied or pending", Flags: db(),
						Action: a.action(false, func(ctx context.Context, cmd *cli.Command) error { return migrate(ctx, &a.c, cmd, a.stdout) })},
				},
			},
			{
				Name:      "token",
				Usage:     "manage API tokens",
				UsageText: "koredyne token create|list|revoke [options] (each lists its options in --help)",
				Action:    group("create, list or revoke"),
				Commands: []*cli.Command{
					{
						Name:      "create",
						Usage:     "create an API token and print it (it is shown once)",
						UsageText: "koredyne token create --business SLUG --role ROLE [--client ID | --staff ID] [--name NAME]",
						Flags: with([]cli.Flag{
							business(true, "the business the token acts in"),
							&cli.StringFlag{Name: "role", Required: true, Usage: "owner, manager, front_desk, staff, read_only or client"},
							&cli.StringFlag{Name: "name", Usage: "a name to tell the token apart"},
							&cli.Int64Flag{Name: "client", HideDefault: true, Usage: "the client a client token books for (required with --role client)"},
							&cli.Int64Flag{Name: "staff", HideDefault: true, Usage: "the staff member a staff token acts for"},
						}, db()),
						Action: a.action(false, func(ctx context.Context, cmd *cli.Command) error { return token(ctx, &a.c, cmd, a.stdout) }),
					},
					{
						Name:      "list",
						Usage:     "list a business's API tokens: id, role, name and whom they act for (never their secrets)",
						UsageText: "koredyne token list --business SLUG",
						Flags:     with([]cli.Flag{business(true, "the business whose tokens to list")}, db()),
						Action:    a.action(false, func(ctx context.Context, cmd *cli.Command) error { return listTokens(ctx, &a.c, cmd, a.stdout) }),
					},
					{
						Name:      "revoke",
						Usage:     "revoke an API token: requests with it fail from now on, on every server",
						UsageText: "koredyne token revoke ID --business SLUG",
						Description: "ID is the token's id, as token list shows it. As GraphQL's revokeToken does, it ends the\n" +
							"token's live subscriptions: on PostgreSQL every server hears of it at once; on SQLite a\n" +
							"server running on the same file finds them within a second.",
						Flags:  with([]cli.Flag{business(true, "the business the token belongs to")}, db()),
						Action: a.action(false, func(ctx context.Context, cmd *cli.Command) error { return revokeToken(ctx, &a.c, cmd, a.stdout) }),
					},
				},
			},
			{
				Name:   "demo",
				Usage:  "load demo timetables",
				Action: group("load"),
				Commands: []*cli.Command{{
					Name:      "load",
					Usage:     "load a demo (gym, clinic or office) into a business, creating it when missing",
					UsageText: "koredyne demo load gym|clinic|office --business SLUG",
					Flags:     with([]cli.Flag{business(true, "the business to load the demo into")}, db()),
					Action:    a.action(false, func(ctx context.Context, cmd *cli.Command) error { return loadDemo(ctx, &a.c, cmd, a.stdout) }),
				}},
			},
			{
				Name:   "export",
				Usage:  "write a business's data",
				Action: group("json or ics"),
				Commands: []*cli.Command{
					{Name: "json", Usage: "a backup of everything, for import json", UsageText: "koredyne export json --business SLUG [--out FILE]",
						Flags:  with([]cli.Flag{business(true, "the business to export"), &cli.StringFlag{Name: "out", Usage: "file to write (default: standard output)"}}, db()),
						Action: a.action(false, func(ctx context.Context, cmd *cli.Command) error { return export(ctx, &a.c, cmd, a.stdout) })},
					{Name: "ics", Usage: "the timetable as recurring calendar events", UsageText: "koredyne export ics --business SLUG [--out FILE]",
						Flags:  with([]cli.Flag{business(true, "the business to export"), &cli.StringFlag{Name: "out", Usage: "file to write (default: standard output)"}}, db()),
						Action: a.action(false, func(ctx context.Context, cmd *cli.Command) error { return export(ctx, &a.c, cmd, a.stdout) })},
				},
			},
			{
				Name:   "import",
				Usage:  "read data into a business",
				Action: group("json, koredyne or ics"),
				Commands: []*cli.Command{
					{Name: "json", Usage: "restore a backup made by export json", UsageText: "koredyne import json FILE [--business NEW]",
						Description: "With --business, the business is restored under that name with new ids, so a backup\ncan be restored beside its original in the same database.",
						Flags:       with([]cli.Flag{business(false, "restore under this name, with new ids (default: the backup's own name and ids)")}, db()),
						Action:      a.action(false, func(ctx context.Context, cmd *cli.Command) error { return importJSON(ctx, &a.c, cmd, a.stdout) })},
					{Name: "koredyne", Usage: "move a business over from the reference system's export",
						UsageText: "koredyne import koredyne FILE --business SLUG [--create --time-zone ZONE] [--replace] [--dry-run] [--strict]",
						Flags: with([]cli.Flag{business(true, "the business to import into"),
							&cli.BoolFlag{Name: "create", Usage: "create the business when it does not exist (needs --time-zone)"},
							&cli.StringFlag{Name: "time-zone", Usage: "IANA time zone of a new business, such as Europe/Berlin"},
							&cli.BoolFlag{Name: "replace", Usage: "replace a business's existing timetable"},
							&cli.BoolFlag{Name: "strict", Usage: "refuse the import when it holds double bookings"},
							dryRun}, db()),
						Action: a.action(false, func(ctx context.Context, cmd *cli.Command) error { return importKoredyne(ctx, &a.c, cmd, a.stdout) })},
					{Name: "ics", Usage: "add a calendar file's events to a business's timetable",
						UsageText: "koredyne import ics FILE --business SLUG [--dry-run] [--expand-until DATE] [--default-staff NAME] [--default-room NAME]",
						Flags: with([]cli.Flag{business(true, "the business to import into"),
							&cli.StringFlag{Name: "expand-until", Usage: "date (YYYY-MM-DD) until which rules the timetable cannot hold are expanded into one-offs"},
							&cli.StringFlag{Name: "default-staff", Usage: "staff member of events that name none"},
							&cli.StringFlag{Name: "default-room", Usage: "room of events that name none"},
							dryRun}, db()),
						Action: a.action(false, func(ctx context.Context, cmd *cli.Command) error {
							return importICS(ctx, &a.c, cmd, a.stdout, a.stderr)
						})},
				},
			},
		},
	}
	var walk func(*cli.Command)
	walk = func(c *cli.Command) {
		c.OnUsageError = onUsageError
		for _, s := range c.Commands {
			walk(s)
		}
	}
	walk(root)
	return root
}
