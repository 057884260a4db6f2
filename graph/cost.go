package graph

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

// Defaults of the limits on what one GraphQL request may ask for; a
// Resolver field left at zero takes these.
const (
	// DefaultMaxCost is the most values an answer may hold by the cost
	// model (see costLimit).
	DefaultMaxCost = 200_000
	// DefaultMaxAliases is the most aliased fields a query may hold.
	DefaultMaxAliases = 100
	// DefaultMaxMutations is the most mutation fields one request may run.
	DefaultMaxMutations = 20
	// DefaultMaxResponse is the largest answer, in bytes.
	DefaultMaxResponse = 32 << 20
)

// Bounds for lists no snapshot counts: rows stored outside the schedule
// (tokens, app passwords, session bookings) and what a clash proof or an
// import finds only when it runs. A list longer than its bound is still
// answered; the response size limit is what then stops it.
const (
	tokensBound          = 200  // tokens, app passwords
	bookingsPerSession   = 100  // places, wait list and cancellations of one session
	bookingsPerClientDay = 2    // a client's bookings of one session (a cancelled one, then a new one)
	clashesBound         = 100  // clashes of a report or a write
	problemsBound        = 1000 // problems of one calendar import
	eventTypesBound      = 50   // webhook event types (models/webhook registers them)
)

// costLimit refuses a query whose answer could hold more values than max
// before anything runs. A field costs one value per object it is asked of;
// a list field multiplies what it holds by its size bound: how many rows
// the business has (rooms, series, clients…), how many one parent can
// have at most (a series' entries, a class's staff), how many sessions one
// date can hold, days asked for. So lists that lead back to each other
// (series → entries → series → entries) multiply, and a query that nests
// them a few times is refused, while a year of the week's sessions is not.
// Under a list of all rows of a kind (series, each once) a one-to-many
// list (their entries) holds at most all rows of its kind, not the product.
// The counts come from the snapshot the request reads, so they are exact
// for queries; a mutation's payload is costed on the schedule before the
// write (the response size limit covers what it adds).
type costLimit struct {
	r     *Resolver
	max   int
	stats *lru.LRU[*counts]
	// schema bounds the introspection lists, which the schema fixes;
	// wraps is the most wrappers (non-null, list) of any type it names,
	// and so how deep a chain of __Type.ofType can be before it is null.
	schema map[string]bound
	wraps  int
}

func newCostLimit(r *Resolver, schema *ast.Schema) *costLimit {
	return &costLimit{r: r, max: r.limit(r.MaxCost, DefaultMaxCost), stats: lru.New[*counts](128), schema: schemaBounds(schema), wraps: mostWrappers(schema)}
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = (*costLimit)(nil)

func (*costLimit) ExtensionName() string                   { return "QueryCost" }
func (*costLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (c *costLimit) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	w := &costWalk{ctx: ctx, c: c, vars: oc.Variables, fragments: oc.Doc.Fragments}
	cost := w.set(oc.Operation.SelectionSet, 1, true)
	if w.err != nil {
		return &gqlerror.Error{Err: w.err, Message: w.err.Error()}
	}
	if cost <= c.max {
		// The rate limit prices a query by its cost: a unit per 1,000.
		c.r.observer().Work(ctx, float64(cost)/1000)
		if req := requestFrom(ctx); req != nil {
			req.work = float64(cost) / 1000 // for the answer the cache keeps
		}
		return nil
	}
	return tooComplex(cost, fmt.Sprintf("The query could return %d values (its cost); at most %d are allowed: ask for fewer days, fewer nested lists or fewer fields", cost, c.max))
}

// tooComplex is the error of every limit on what a query asks for.
func tooComplex(cost int, message string) *gqlerror.Error {
	err := gqlerror.Errorf("%s", message)
	errcode.Set(err, "QUERY_TOO_COMPLEX")
	if cost > 0 {
		err.Extensions["cost"] = cost
	}
	return err
}

// costWalk adds up the cost of one operation. It walks every field with
// fragments spread, which the query gate has bounded.
type costWalk struct {
	ctx       context.Context
	c         *costLimit
	vars      map[string]any
	fragments ast.FragmentDefinitionList
	counts    *counts
	business  int64  // whose counts
	key       string // counts' key in costLimit.stats
	err       error
	page      int // the page size of the innermost connection walked
	ofType    int // how many __Type.ofType the field walked is in
}

// set is the cost of a selection set asked of n objects; distinct says
// they are n different objects, each once, so that a one-to-many list under
// them holds at most every row of its kind.
func (w *costWalk) set(set ast.SelectionSet, n int, distinct bool) int {
	total := 0
	for _, sel := range set {
		if w.err != nil {
			return total
		}
		switch s := sel.(type) {
		case *ast.Field:
			total = add(total, w.field(s, n, distinct))
		case *ast.InlineFragment:
			total = add(total, w.set(s.SelectionSet, n, distinct))
		case *ast.FragmentSpread:
			if f := w.fragments.ForName(s.Name); f != nil {
				total = add(total, w.set(f.SelectionSet, n, distinct))
			}
		}
	}
	return total
}

func (w *costWalk) field(f *ast.Field, n int, distinct bool) int {
	if f.Definition == nil || f.Name == "__typename" {
		return n
	}
	if f.Definition.Type.Elem == nil {
		switch {
		case f.ObjectDefinition != nil && f.ObjectDefinition.Name == "Query" && f.Name == "calendarExport":
			return add(n, w.exportLines()) // one string, but a file of the whole timetable
		case f.Name == "__schema":
			// gqlgen describes the whole schema afresh each time it is asked
			return add(add(n, mul(n, schemaWork)), w.set(f.SelectionSet, n, distinct && n == 1))
		case f.Name == "ofType" && f.ObjectDefinition != nil && f.ObjectDefinition.Name == "__Type":
			// Introspection asks for type references many wrappers deep
			// (GraphiQL: nine); beyond the schema's deepest one they are
			// null, a value each and nothing under them.
			if w.ofType >= w.c.wraps {
				return n
			}
			w.ofType++
			defer func() { w.ofType-- }()
		}
		if strings.HasSuffix(f.Definition.Type.NamedType, "Connection") {
			// A page of a list: its edges and nodes are as long as the
			// page, at most every row there is.
			outer := w.page
			w.page = w.pageSize(f)
			defer func() { w.page = outer }()
		}
		// One object is always distinct; more may be the same one.
		return add(n, w.set(f.SelectionSet, n, distinct && n == 1))
	}
	b := w.bound(f)
	m := mul(n, b.each)
	if distinct && b.all >= 0 {
		m = min(m, b.all)
	}
	return add(add(n, m), w.set(f.SelectionSet, m, distinct && b.oneToMany))
}

// bound is how long a list can be: each, for one parent; all, for every
// parent of the kind together (-1: no such bound); oneToMany when each
// element belongs to one parent only.
type bound struct {
	each, all int
	oneToMany bool
}

func (w *costWalk) bound(f *ast.Field) bound {
	parent := ""
	if f.ObjectDefinition != nil {
		parent = f.ObjectDefinition.Name
	}
	if b, ok := w.c.schema[parent+"."+f.Name]; ok {
		return b
	}
	if b, ok := fixedBound(parent, f.Name); ok {
		return b
	}
	k := w.snapshotCounts()
	switch parent + "." + f.Name {
	case "Query.clients", "Query.memberships", "Series.memberships", "Client.memberships",
		"Query.subscriptions", "Series.subscriptions", "Client.subscriptions": // the memberships' deprecated names
		k = w.clientCounts()
	}
	if k == nil {
		return bound{each: 0, all: 0}
	}
	root := func(rows int) bound { return bound{each: rows, all: rows, oneToMany: true} }
	if strings.HasSuffix(parent, "Connection") && (f.Name == "edges" || f.Name == "nodes") {
		return bound{each: w.page, all: -1, oneToMany: true}
	}
	switch parent + "." + f.Name {
	case "Query.rooms":
		return root(k.rooms)
	case "Query.staff":
		return root(k.staff)
	case "Query.activities":
		return root(k.activities)
	case "Query.classes":
		return root(k.classes)
	case "Query.classTimes":
		return root(k.classTimes)
	case "Query.allSeries":
		return root(k.series)
	case "Query.plans":
		return root(k.plans)
	case "Query.clients":
		return root(k.clients)
	case "Query.memberships", "Query.subscriptions":
		return root(k.subscriptions)
	case "Query.oneOffs":
		return root(k.oneOffs)
	case "Query.closures":
		return root(k.closures)
	case "Query.capacityRules":
		return root(k.capacityRules)
	case "Query.roomBookings":
		return root(k.roomBookings)
	case "Query.standingBookings":
		return root(k.standing)
	case "Impact.calendars":
		// The business's, and each staff member's and room's.
		return bound{each: add(add(k.staff, k.rooms), 1), all: -1, oneToMany: true}
	case "ImpactSession.bookings", "ImpactSession.waitlist":
		// The places of the session, as the most any session has (a
		// wait list is priced like its places).
		per := bookingsPerSession
		if k.places > 0 {
			per = min(per, k.places)
		}
		return bound{each: per, all: -1, oneToMany: true}
	case "Session.standing", "Session.standingWaitlist", "ImpactSession.standing", "ImpactSession.standingWaitlist":
		return bound{each: k.standingPerSession, all: -1}
	case "StandingBooking.skipped":
		return bound{each: k.skipsPerStanding, all: k.standingSkips, oneToMany: true}
	case "StandingBooking.dates":
		// One session a week (a class time has one weekday); 4 weeks
		// when from and to are left out.
		days := 28
		if args := f.ArgumentMap(w.vars); args["from"] != nil || args["to"] != nil {
			days = w.days(f, "from", "to")
		}
		return bound{each: days/7 + 1, all: -1, oneToMany: true}
	case "StandingBookingPayload.waitingDates":
		// A run for each stretch between the dates where the places
		// change, for each entry of the session.
		stretches := add(mul(2, add(add(k.standing, k.standingSkips), add(k.changes, k.closures))), 1)
		return bound{each: mul(stretches, max(k.entriesPerSeries, 1)), all: -1, oneToMany: true}
	case "Query.days":
		return root(w.days(f, "from", "to"))
	case "Query.freeRooms":
		return root(k.rooms)
	case "Query.placements":
		// A start a minute in every room, weekday and week of the longest
		// rotation: the most a request can ask for.
		return root(mul(k.rooms, 7*24*60*engine.MaxPlacementCycle))
	case "Query.timeOffs":
		return root(k.timeOffs)
	case "Staff.workingHours":
		return bound{each: k.hours, all: k.hours, oneToMany: true}
	case "Session.needsCover":
		// Each of its staff: every time off that meets it, and hours.
		return bound{each: mul(k.staffPerSession, add(k.timeOffs, 1)), all: -1}
	case "TimeOffPayload.needsCover", "WorkingHoursPayload.needsCover":
		// One rule: a run of each series entry, and each dated session.
		return bound{each: add(k.entries, add(k.changes, k.oneOffs)), all: -1, oneToMany: true}
	case "Query.uncovered":
		return bound{each: mul(add(k.entries, add(k.changes, k.oneOffs)), add(k.timeOffs, k.hours)), all: -1, oneToMany: true}
	case "CoverOptions.options", "CoverOptions.excluded":
		return bound{each: k.staff, all: -1, oneToMany: true}
	case "CoverPlan.assignments", "CoverPlan.open":
		// A time off leaves at most the sessions of the days it lasts,
		// which the snapshot does not count: a year of them.
		return bound{each: mul(MaxDays, k.perDay), all: -1, oneToMany: true}
	case "UnplacedLine.constraints":
		// Each coach's hours, time off, sessions and limits, each room's
		// capacity and sessions, and the day's bounds or the timetable.
		return bound{each: add(mul(4, k.staff), add(mul(2, k.rooms), 2)), all: -1}
	case "AssignCoverPayload.sessions":
		return bound{each: maxCovers, all: -1, oneToMany: true}
	case "Staff.qualifications":
		return bound{each: k.activities, all: -1}
	case "Query.sessionsNeedingCover":
		return bound{each: mul(w.days(f, "from", "to"), k.perDay), all: -1, oneToMany: true}
	case "Query.sessions", "Clash.sessions":
		days := 1
		if parent == "Query" {
			days = w.days(f, "from", "to")
		}
		return bound{each: mul(days, k.perDay), all: -1, oneToMany: true}
	case "Query.bookings":
		per := bookingsPerSession
		if f.ArgumentMap(w.vars)["clientId"] != nil || principal(w.ctx).Role == models.ClientRole {
			per = bookingsPerClientDay
		}
		return bound{each: mul(mul(w.days(f, "from", "to"), k.perDay), per), all: -1, oneToMany: true}
	case "Query.availability", "Query.timeline":
		// Each session, room booking and capacity rule of a day starts
		// and ends at most one stretch.
		days := w.instantDays(f)
		points := add(mul(days, add(k.perDay, k.capacityRules)), k.roomBookings)
		return bound{each: add(mul(2, points), 1), all: -1, oneToMany: true}
	case "Day.sessions":
		return bound{each: k.perDay, all: -1, oneToMany: true}
	case "Class.staff", "Session.staff", "SessionOrigin.staff":
		return bound{each: k.staffPerSession, all: -1}
	case "BookingSnapshot.staff":
		return bound{each: k.staff, all: -1}
	case "Series.entries":
		return bound{each: k.entriesPerSeries, all: k.entries, oneToMany: true}
	case "Series.plans":
		return bound{each: k.plansPerSeries, all: k.plans, oneToMany: true}
	case "Series.memberships", "Series.subscriptions":
		return bound{each: k.subscriptionsPerSeries, all: k.subscriptions, oneToMany: true}
	case "Client.memberships", "Client.subscriptions":
		return bound{each: k.subscriptionsPerClient, all: k.subscriptions, oneToMany: true}
	case "OneOff.clients":
		return bound{each: k.clientsPerOneOff, all: k.oneOffClients}
	case "Closure.rooms":
		return bound{each: k.roomsPerClosure, all: k.closureRooms}
	case "Session.series":
		return bound{each: k.seriesPerSession, all: -1}
	case "SeriesPayload.changesNotCarried":
		return bound{each: k.changes, all: -1}
	}
	// A list this table does not know (a test walks the schema so that
	// none is left out) is priced like the longest the business has.
	if k = w.clientCounts(); k == nil {
		return bound{each: 0, all: 0}
	}
	return bound{each: k.largest, all: -1}
}

// exportLines prices calendarExport as the lines of its file: about ten
// for each series entry, one-off, day change and closure.
func (w *costWalk) exportLines() int {
	k := w.snapshotCounts()
	if k == nil {
		return 0
	}
	return mul(10, k.entries+k.oneOffs+k.changes+k.closures+1)
}

// fixedBound is the bound of lists that no snapshot counts.
func fixedBound(parent, field string) (bound, bool) {
	switch {
	case parent == "Query" && (field == "tokens" || field == "appPasswords"):
		return bound{each: tokensBound, all: tokensBound, oneToMany: true}, true
	case field == "clashes": // ClashReport and every payload
		return bound{each: clashesBound, all: -1, oneToMany: true}, true
	case parent == "CalendarImportPayload" && field == "problems":
		return bound{each: problemsBound, all: -1, oneToMany: true}, true
	case parent == "Impact" && field == "sessions":
		return bound{each: models.MaxImpactSessions, all: -1, oneToMany: true}, true
	case parent == "ImpactSession" && field == "changes": // every kind of change
		return bound{each: 8, all: -1}, true
	case field == "bookings" && parent == "Session", field == "promoted":
		return bound{each: bookingsPerSession, all: -1, oneToMany: true}, true
	case parent == "Query" && field == "webhookEventTypes", parent == "WebhookEndpoint" && field == "events":
		return bound{each: eventTypesBound, all: -1, oneToMany: true}, true
	case parent == "CapacityRule" && field == "weekdays":
		return bound{each: 7, all: -1}, true
	case parent == "Locale" && field == "pluralCategories": // CLDR has six
		return bound{each: 6, all: -1}, true
	case parent == "CoverOption" && field == "reasons":
		return bound{each: 3, all: -1}, true
	case parent == "WorkingHours" && field == "spans":
		return bound{each: engine.MaxHoursSpans, all: -1}, true
	case parent == "Proposal" && (field == "unplaced" || field == "series"), parent == "ApplyProposalPayload" && field == "series":
		return bound{each: maxDemandLines, all: -1, oneToMany: true}, true
	case parent == "ProposalScore" && field == "parts":
		return bound{each: 4, all: -1}, true
	}
	return bound{}, false
}

// days is how many days a field's from..to (to exclusive) asks for, as the
// resolver will see them: at least 1 and at most MaxDays (more is refused).
func (w *costWalk) days(f *ast.Field, from, to string) int {
	args := f.ArgumentMap(w.vars)
	a, _ := args[from].(string)
	b, _ := args[to].(string)
	d1, err1 := engine.ParseDate(a)
	d2, err2 := engine.ParseDate(b)
	if err1 != nil || err2 != nil {
		return MaxDays
	}
	return min(max(d2.Sub(d1), 1), MaxDays)
}

// pageSize is how many rows a connection field can give: first (or the
// default page), at most the rows of the list it pages through — priced
// under the connection field's own name, as the list it replaces.
func (w *costWalk) pageSize(f *ast.Field) int {
	n := defaultPage
	switch first := f.ArgumentMap(w.vars)["first"].(type) {
	case int64:
		n = int(min(max(first, 0), maxPage))
	case int:
		n = min(max(first, 0), maxPage)
	}
	return min(n, w.bound(f).each)
}

// instantDays is days for a from..to of instants: the calendar days the
// span touches.
func (w *costWalk) instantDays(f *ast.Field) int {
	args := f.ArgumentMap(w.vars)
	a, _ := args["from"].(string)
	b, _ := args["to"].(string)
	t1, err1 := time.Parse(time.RFC3339, a)
	t2, err2 := time.Parse(time.RFC3339, b)
	if err1 != nil || err2 != nil || !t2.After(t1) {
		return MaxDays + 1
	}
	return min(int(t2.Sub(t1)/(24*time.Hour))+2, MaxDays+1)
}

// snapshotCounts reads the counts of the request's snapshot once. The
// clients and subscriptions, which the database holds, are counted only
// for a query that lists them (clientCounts): a first week of a business
// does not wait for three more statements.
func (w *costWalk) snapshotCounts() *counts {
	if w.counts != nil || w.err != nil {
		return w.counts
	}
	if requestFrom(w.ctx) == nil {
		return nil
	}
	sn, err := w.c.r.snapshot(w.ctx)
	if err != nil {
		w.err = err
		return nil
	}
	w.business = sn.Business.ID
	w.key = strconv.FormatInt(sn.Business.ID, 10) + "@" + strconv.FormatInt(sn.Business.Revision, 10)
	if k, ok := w.c.stats.Get(w.ctx, w.key); ok {
		w.counts = k
		return k
	}
	w.counts = countsOf(&sn.State)
	w.c.stats.Add(w.ctx, w.key, w.counts)
	return w.counts
}

// clientCounts is snapshotCounts with the clients and subscriptions
// counted, in the database, once a revision (every write to them makes
// one).
func (w *costWalk) clientCounts() *counts {
	k := w.snapshotCounts()
	if k == nil || k.clientsCounted {
		return k
	}
	cc, err := models.CountClients(w.ctx, w.c.r.Store.DB, w.business)
	if err != nil {
		w.err = err
		return nil
	}
	c := *k // the cached counts are shared with other requests
	c.clients, c.subscriptions, c.subscriptionsPerClient, c.subscriptionsPerSeries = cc.Clients, cc.Subscriptions, cc.PerClient, cc.PerSeries
	c.largest = max(c.largest, c.clients, c.subscriptions)
	c.clientsCounted = true
	w.counts = &c
	w.c.stats.Add(w.ctx, w.key, w.counts)
	return w.counts
}

// counts are the sizes of a business's lists that bound the cost of a
// query: how many rows of each kind, and the most one parent has.
type counts struct {
	rooms, staff, activities, classes, classTimes, series, entries, plans  int
	clients, subscriptions, oneOffs, closures, capacityRules, roomBookings int
	changes, timeOffs, hours                                               int
	// standing places and their skipped dates; the most of one session
	// and of one place
	standing, standingSkips, standingPerSession, skipsPerStanding int

	entriesPerSeries, plansPerSeries, subscriptionsPerSeries, subscriptionsPerClient int
	clientsPerOneOff, oneOffClients, roomsPerClosure, closureRooms                   int
	// staffPerSession is the most staff of one class or one cover.
	staffPerSession int
	// perDay is the most sessions one date can hold: the series sessions
	// of its weekday (one per class time and class, however many series
	// share it), the most sessions moved onto one date, and the most
	// one-offs of one date.
	perDay int
	// seriesPerSession is the most series sharing one session.
	seriesPerSession int
	// places is the most places of one session; zero when some session
	// has no limit.
	places int
	// largest is the longest list of any kind.
	largest int
	// clientsCounted says clients and subscriptions are counted.
	clientsCounted bool
}

func countsOf(s *engine.State) *counts {
	k := &counts{
		rooms: len(s.Rooms), staff: len(s.Staff), activities: len(s.Activities), classes: len(s.Classes),
		classTimes: len(s.ClassTimes), series: len(s.Series), entries: len(s.Entries), plans: len(s.Plans),
		clients: len(s.Clients), subscriptions: len(s.Subscriptions), oneOffs: len(s.OneOffs),
		closures: len(s.Closures), capacityRules: len(s.Capacity), roomBookings: len(s.RoomBookings),
		changes: len(s.Changes), timeOffs: len(s.TimeOffs), hours: len(s.Hours),
		standing: len(s.Standing), standingSkips: len(s.StandingSkips),
	}
	most := func(m map[int64]int) int {
		out := 0
		for _, v := range m {
			out = max(out, v)
		}
		return out
	}
	for _, ct := range s.ClassTimes {
		if k.places = max(k.places, ct.Capacity); ct.Capacity == 0 {
			k.places = -1
			break
		}
	}
	for _, o := range s.OneOffs {
		if k.places >= 0 {
			if k.places = max(k.places, o.Capacity); o.Capacity == 0 {
				k.places = -1
			}
		}
	}
	k.places = max(k.places, 0)
	perSeries := map[int64]int{}
	for _, e := range s.Entries {
		perSeries[e.SeriesID]++
	}
	k.entriesPerSeries = most(perSeries)
	clear(perSeries)
	for _, p := range s.Plans {
		perSeries[p.SeriesID]++
	}
	k.plansPerSeries = most(perSeries)
	clear(perSeries)
	perClient := map[int64]int{}
	for _, sub := range s.Subscriptions {
		perSeries[sub.SeriesID]++
		perClient[sub.ClientID]++
	}
	k.subscriptionsPerSeries, k.subscriptionsPerClient = most(perSeries), most(perClient)
	perGroup, perRule := map[[2]int64]int{}, map[int64]int{}
	for _, r := range s.Standing {
		perGroup[[2]int64{r.ClassTimeID, r.ClassID}]++
	}
	for _, n := range perGroup {
		k.standingPerSession = max(k.standingPerSession, n)
	}
	for _, x := range s.StandingSkips {
		perRule[x.StandingID]++
	}
	k.skipsPerStanding = most(perRule)
	for _, c := range s.Classes {
		k.staffPerSession = max(k.staffPerSession, len(c.StaffIDs))
	}
	for _, c := range s.Changes {
		k.staffPerSession = max(k.staffPerSession, len(c.StaffIDs))
	}
	for _, c := range s.Closures {
		k.roomsPerClosure = max(k.roomsPerClosure, len(c.RoomIDs))
		k.closureRooms += len(c.RoomIDs)
	}

	weekday := make(map[int64]time.Weekday, len(s.ClassTimes))
	for _, ct := range s.ClassTimes {
		weekday[ct.ID] = ct.Weekday
	}
	series := map[[2]int64]map[int64]bool{} // (class time, class) → its series
	for _, e := range s.Entries {
		pair := [2]int64{e.ClassTimeID, e.ClassID}
		if series[pair] == nil {
			series[pair] = map[int64]bool{}
		}
		series[pair][e.SeriesID] = true
	}
	var onWeekday [7]int
	for pair, in := range series {
		onWeekday[weekday[pair[0]]]++
		k.seriesPerSession = max(k.seriesPerSession, len(in))
	}
	byDate := func(dates []engine.Date) int {
		n := map[engine.Date]int{}
		out := 0
		for _, d := range dates {
			n[d]++
			out = max(out, n[d])
		}
		return out
	}
	var moved, oneOffs []engine.Date
	for _, c := range s.Changes {
		if c.Date != 0 && c.Date != c.Ref.Date {
			moved = append(moved, c.Date)
		}
	}
	for _, o := range s.OneOffs {
		oneOffs = append(oneOffs, o.Date)
		k.clientsPerOneOff = max(k.clientsPerOneOff, len(o.ClientIDs))
		k.oneOffClients += len(o.ClientIDs)
	}
	k.perDay = max(onWeekday[0], onWeekday[1], onWeekday[2], onWeekday[3], onWeekday[4], onWeekday[5], onWeekday[6]) +
		byDate(moved) + byDate(oneOffs)
	k.largest = max(k.rooms, k.staff, k.activities, k.classes, k.classTimes, k.series, k.entries, k.plans,
		k.clients, k.subscriptions, k.oneOffs, k.closures, k.capacityRules, k.roomBookings, k.changes, k.perDay,
		k.timeOffs, k.hours)
	return k
}

// add and mul saturate rather than overflow: a cost past any limit is
// only compared with it.
func add(a, b int) int {
	if a > costCeiling-b {
		return costCeiling
	}
	return a + b
}

func mul(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > costCeiling/b {
		return costCeiling
	}
	return a * b
}

const costCeiling = 1 << 40

// schemaWork is what describing the schema (__schema) costs besides the
// values asked of it: gqlgen builds it afresh each time, about as much
// work as answering this many values.
const schemaWork = 20_000

// mostWrappers is the most wrappers (non-null, list) around any type the
// schema's fields and arguments name: [Session!]! has three.
func mostWrappers(s *ast.Schema) int {
	var wraps func(t *ast.Type) int
	wraps = func(t *ast.Type) int {
		n := 0
		if t.NonNull {
			n++
		}
		if t.Elem != nil {
			n += 1 + wraps(t.Elem)
		}
		return n
	}
	most := 0
	for _, def := range s.Types {
		for _, f := range def.Fields {
			most = max(most, wraps(f.Type))
			for _, a := range f.Arguments {
				most = max(most, wraps(a.Type))
			}
		}
	}
	for _, d := range s.Directives {
		for _, a := range d.Arguments {
			most = max(most, wraps(a.Type))
		}
	}
	return most
}

// schemaBounds are the bounds of introspection's lists (__schema { types
// { fields { args } } } …), which the schema fixes.
func schemaBounds(s *ast.Schema) map[string]bound {
	var fields, args, enums, inputs, interfaces, possible, dirArgs bound
	grow := func(b *bound, n int) { b.each = max(b.each, n); b.all += n }
	for name, def := range s.Types {
		switch def.Kind {
		case ast.InputObject:
			grow(&inputs, len(def.Fields))
		case ast.Enum:
			grow(&enums, len(def.EnumValues))
		default:
			grow(&fields, len(def.Fields))
		}
		for _, f := range def.Fields {
			grow(&args, len(f.Arguments))
		}
		grow(&interfaces, len(def.Interfaces))
		grow(&possible, len(s.PossibleTypes[name]))
	}
	for _, d := range s.Directives {
		grow(&dirArgs, len(d.Arguments))
	}
	fields.oneToMany, args.oneToMany, enums.oneToMany, inputs.oneToMany, dirArgs.oneToMany = true, true, true, true, true
	interfaces.all, possible.all = -1, -1
	all := func(n int) bound { return bound{each: n, all: n, oneToMany: true} }
	return map[string]bound{
		"__Schema.types":        all(len(s.Types)),
		"__Schema.directives":   all(len(s.Directives)),
		"__Type.fields":         fields,
		"__Type.inputFields":    inputs,
		"__Type.enumValues":     enums,
		"__Type.interfaces":     interfaces,
		"__Type.possibleTypes":  possible,
		"__Field.args":          args,
		"__Directive.args":      dirArgs,
		"__Directive.locations": {each: 19, all: -1}, // the locations GraphQL defines
	}
}
