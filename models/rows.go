package models

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// Day is an engine.Date as the database keeps it: a DATE in PostgreSQL,
// YYYY-MM-DD text in SQLite, NULL for the zero Date.
type Day engine.Date

func (d Day) Value() (driver.Value, error) {
	if d == 0 {
		return nil, nil
	}
	return engine.Date(d).String(), nil
}

func (d *Day) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*d = 0
		return nil
	case time.Time:
		*d = Day(engine.DateOf(v))
		return nil
	case string:
		return d.parse(v)
	case []byte:
		return d.parse(string(v))
	}
	return fmt.Errorf("cannot read %T as a date", src)
}

// MarshalJSON writes a Day as "YYYY-MM-DD", or null for the zero Date.
func (d Day) MarshalJSON() ([]byte, error) {
	if d == 0 {
		return []byte("null"), nil
	}
	return json.Marshal(engine.Date(d).String())
}

// UnmarshalJSON reads what MarshalJSON writes.
func (d *Day) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == nil {
		*d = 0
		return nil
	}
	return d.parse(*s)
}

func (d *Day) parse(s string) error {
	if len(s) > 10 {
		s = s[:10] // a timestamp's date part
	}
	v, err := engine.ParseDate(s)
	*d = Day(v)
	return err
}

// versioned is the revision that last wrote a row of the schedule.
type versioned struct {
	Revision int64
}

func (v *versioned) setRevision(r int64) { v.Revision = r }
func (v *versioned) revision() int64     { return v.Revision }

// Business is a tenant. Revision grows with every committed write; the
// schedule snapshot and calendar sync tokens are keyed by it.
type Business struct {
	bun.BaseModel `bun:"table:businesses"`

	ID        int64 `bun:",pk,autoincrement"`
	Slug      string
	Name      string
	Kind      string
	Currency  string
	TimeZone  string
	WeekStart int
	// Language, FirstDay, Clock and Digits are engine.Locale: the language
	// of the business's words and how it writes days, times and digits.
	Language string
	FirstDay int8
	Clock    int8
	Digits   string
	Revision int64
	// SettingsRevision is the revision that last changed the settings.
	SettingsRevision int64
	// CursorKey is the secret the API seals the cursors of the business's
	// lists with; it lives with the business so that every server on the
	// database seals and opens them alike.
	CursorKey string
}

// Settings returns the business as the engine sees it.
func (b *Business) Settings() (engine.Business, error) {
	loc, err := time.LoadLocation(b.TimeZone)
	if err != nil {
		return engine.Business{}, fmt.Errorf("business %s: time zone %q: %w", b.Slug, b.TimeZone, err)
	}
	return engine.Business{
		Kind: engine.Kind(b.Kind), Name: fit(b.Name, engine.NameText), Currency: fit(b.Currency, engine.CurrencyText),
		Location: loc, WeekStart: time.Weekday(b.WeekStart),
		Locale: engine.Locale{Language: b.Language, FirstDay: b.FirstDay, Clock: b.Clock, Digits: b.Digits},
	}, nil
}

// UIDDomain ends the UIDs of the business's events in the calendar files
// and feeds it is written to ("…@harbor.koredyne"), so the UIDs of two
// businesses never meet.
func (b *Business) UIDDomain() string { return b.Slug + ".koredyne" }

// SetSettings copies engine settings onto the row.
func (b *Business) SetSettings(s engine.Business) {
	b.Kind, b.Name, b.Currency = string(s.Kind), s.Name, s.Currency
	b.TimeZone = s.Location.String()
	b.WeekStart = int(s.WeekStart)
	b.Language, b.FirstDay, b.Clock, b.Digits = s.Locale.Language, s.Locale.FirstDay, s.Locale.Clock, s.Locale.Digits
}

// APIToken is a bearer token of one business; only its SHA-256 is stored.
type APIToken struct {
	bun.BaseModel `bun:"table:api_tokens"`

	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	Name       string
	Role       Role
	Hash       string
	ClientID   int64 `bun:",nullzero"` // the client role: booking for this client
	StaffID    int64 `bun:",nullzero"` // a staff member the token acts for
}

type Room struct {
	bun.BaseModel `bun:"table:rooms"`

	versioned
	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	Name       string
	Capacity   int
}

func (r *Room) Engine() engine.Room {
	return engine.Room{ID: r.ID, Name: fit(r.Name, engine.NameText), Capacity: min(r.Capacity, engine.MaxUnits)}
}

func roomRow(b int64, r engine.Room) Room {
	return Room{ID: r.ID, BusinessID: b, Name: r.Name, Capacity: r.Capacity}
}

type Staff struct {
	bun.BaseModel `bun:"table:staff"`

	versioned
	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	Name       string
}

func (r *Staff) Engine() engine.Staff {
	return engine.Staff{ID: r.ID, Name: fit(r.Name, engine.NameText)}
}

func staffRow(b int64, s engine.Staff) Staff { return Staff{ID: s.ID, BusinessID: b, Name: s.Name} }

type Activity struct {
	bun.BaseModel `bun:"table:activities"`

	versioned
	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	Name       string
	Color      string
}

func (r *Activity) Engine() engine.Activity {
	return engine.Activity{ID: r.ID, Name: fit(r.Name, engine.NameText), Color: fit(r.Color, engine.ColorText)}
}

func activityRow(b int64, a engine.Activity) Activity {
	return Activity{ID: a.ID, BusinessID: b, Name: a.Name, Color: a.Color}
}

// Class is an activity; its ordered staff are ClassStaff rows.
type Class struct {
	bun.BaseModel `bun:"table:classes"`

	versioned
	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	ActivityID int64
}

type ClassStaff struct {
	bun.BaseModel `bun:"table:class_staff"`

	BusinessID int64 `bun:",pk"`
	ClassID    int64 `bun:",pk"`
	StaffID    int64
	Position   int `bun:",pk"`
}

// Engine returns the class without its staff (see the classes table).
func (r *Class) Engine() engine.Class { return engine.Class{ID: r.ID, ActivityID: r.ActivityID} }

func classRow(b int64, c engine.Class) Class {
	return Class{ID: c.ID, BusinessID: b, ActivityID: c.ActivityID}
}

type ClassTime struct {
	bun.BaseModel `bun:"table:class_times"`

	versioned
	ID            int64 `bun:",pk,autoincrement"`
	BusinessID    int64 `bun:",pk"`
	RoomID        int64
	Weekday       int
	StartMinute   int
	EndMinute     int
	Label         string
	Capacity      int
	Type          string
	BufferMinutes int
	Active        bool
	Units         int
}

func (r *ClassTime) Engine() engine.ClassTime {
	return engine.ClassTime{
		ID: r.ID, RoomID: r.RoomID, Weekday: time.Weekday(r.Weekday),
		Start: engine.LocalTime(r.StartMinute), End: engine.LocalTime(r.EndMinute),
		Label: fit(r.Label, engine.LabelText), Capacity: min(r.Capacity, engine.MaxPlaces), Type: fit(r.Type, engine.LabelText),
		Buffer: r.BufferMinutes, Inactive: !r.Active, Units: min(r.Units, engine.MaxUnits),
	}
}

func classTimeRow(b int64, c engine.ClassTime) ClassTime {
	return ClassTime{
		ID: c.ID, BusinessID: b, RoomID: c.RoomID, Weekday: int(c.Weekday),
		StartMinute: c.Start.Minutes(), EndMinute: c.End.Minutes(), Label: c.Label, Capacity: c.Capacity,
		Type: c.Type, BufferMinutes: c.Buffer, Active: !c.Inactive, Units: c.Units,
	}
}

type Series struct {
	bun.BaseModel `bun:"table:series"`

	versioned
	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	Name       string
	AnchorDate Day
	EndDate    Day
	CycleWeeks int
}

func (r *Series) Engine() engine.Series {
	return engine.Series{ID: r.ID, Name: fit(r.Name, engine.NameText), Anchor: engine.Date(r.AnchorDate), End: engine.Date(r.EndDate), Cycle: r.CycleWeeks}
}

func seriesRow(b int64, s engine.Series) Series {
	return Series{ID: s.ID, BusinessID: b, Name: s.Name, AnchorDate: Day(s.Anchor), EndDate: Day(s.End), CycleWeeks: s.Cycle}
}

type SeriesEntry struct {
	bun.BaseModel `bun:"table:series_entries"`

	versioned
	ID          int64 `bun:",pk,autoincrement"`
	BusinessID  int64 `bun:",pk"`
	SeriesID    int64
	ClassTimeID int64
	ClassID     int64
	Week        int
}

func (r *SeriesEntry) Engine() engine.Entry {
	return engine.Entry{ID: r.ID, SeriesID: r.SeriesID, ClassTimeID: r.ClassTimeID, ClassID: r.ClassID, Week: r.Week}
}

func entryRow(b int64, e engine.Entry) SeriesEntry {
	return SeriesEntry{ID: e.ID, BusinessID: b, SeriesID: e.SeriesID, ClassTimeID: e.ClassTimeID, ClassID: e.ClassID, Week: e.Week}
}

type Plan struct {
	bun.BaseModel `bun:"table:plans"`

	versioned
	ID               int64 `bun:",pk,autoincrement"`
	BusinessID       int64 `bun:",pk"`
	SeriesID         int64
	Name             string
	SessionsPerMonth int
	Months           int
	Price            int64
}

func (r *Plan) Engine() engine.Plan {
	return engine.Plan{ID: r.ID, SeriesID: r.SeriesID, Name: fit(r.Name, engine.NameText),
		PerMonth: min(r.SessionsPerMonth, engine.MaxPerMonth), Months: min(r.Months, engine.MaxMonths), Price: engine.Money(r.Price)}
}

func planRow(b int64, p engine.Plan) Plan {
	return Plan{ID: p.ID, BusinessID: b, SeriesID: p.SeriesID, Name: p.Name, SessionsPerMonth: p.PerMonth, Months: p.Months, Price: int64(p.Price)}
}

// Client and Subscription are the business's customers. They are not part of
// the schedule snapshot: a gym with thousands of members should not reload
// them to compute a week. Requests load them with dataloaders.
type Client struct {
	bun.BaseModel `bun:"table:clients"`

	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	Name       string
	Email      string
	Phone      string
}

func (r *Client) Engine() engine.Client {
	return engine.Client{ID: r.ID, Name: fit(r.Name, engine.NameText), Email: fit(r.Email, engine.EmailText), Phone: fit(r.Phone, engine.PhoneText)}
}

func clientRow(b int64, c engine.Client) Client {
	return Client{ID: c.ID, BusinessID: b, Name: c.Name, Email: c.Email, Phone: c.Phone}
}

type Subscription struct {
	bun.BaseModel `bun:"table:subscriptions"`

	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	ClientID   int64
	SeriesID   int64
	PlanID     int64 `bun:",nullzero"`
	StartDate  Day
	EndDate    Day
}

func (r *Subscription) Engine() engine.Subscription {
	return engine.Subscription{ID: r.ID, ClientID: r.ClientID, SeriesID: r.SeriesID, PlanID: r.PlanID, Start: engine.Date(r.StartDate), End: engine.Date(r.EndDate)}
}

func subscriptionRow(b int64, s engine.Subscription) Subscription {
	return Subscription{ID: s.ID, BusinessID: b, ClientID: s.ClientID, SeriesID: s.SeriesID, PlanID: s.PlanID, StartDate: Day(s.Start), EndDate: Day(s.End)}
}

type OneOff struct {
	bun.BaseModel `bun:"table:one_offs"`

	versioned
	ID            int64 `bun:",pk,autoincrement"`
	BusinessID    int64 `bun:",pk"`
	ClassID       int64
	RoomID        int64
	Date          Day
	StartMinute   int
	EndMinute     int
	Label         string
	Capacity      int
	BufferMinutes int
	Units         int
	Cancelled     bool
	Note          string
}

func (r *OneOff) Engine() engine.OneOff {
	return engine.OneOff{
		ID: r.ID, ClassID: r.ClassID, RoomID: r.RoomID, Date: engine.Date(r.Date),
		Start: engine.LocalTime(r.StartMinute), End: engine.LocalTime(r.EndMinute), Label: fit(r.Label, engine.LabelText),
		Capacity: min(r.Capacity, engine.MaxPlaces), Buffer: r.BufferMinutes, Units: min(r.Units, engine.MaxUnits), Cancelled: r.Cancelled,
		Note: fit(r.Note, engine.NoteText),
	}
}

func oneOffRow(b int64, o engine.OneOff) OneOff {
	return OneOff{
		ID: o.ID, BusinessID: b, ClassID: o.ClassID, RoomID: o.RoomID, Date: Day(o.Date),
		StartMinute: o.Start.Minutes(), EndMinute: o.End.Minutes(), Label: o.Label, Capacity: o.Capacity,
		BufferMinutes: o.Buffer, Units: o.Units, Cancelled: o.Cancelled, Note: o.Note,
	}
}

type OneOffClient struct {
	bun.BaseModel `bun:"table:one_off_clients"`

	BusinessID int64 `bun:",pk"`
	OneOffID   int64 `bun:",pk"`
	ClientID   int64 `bun:",pk"`
}

// DayChange is a change of one series session; its cover staff, if any, are
// DayChangeStaff rows.
type DayChange struct {
	bun.BaseModel `bun:"table:day_changes"`

	versioned
	ID          int64 `bun:",pk,autoincrement"`
	BusinessID  int64 `bun:",pk"`
	OrigDate    Day
	ClassTimeID int64
	ClassID     int64
	Cancelled   bool
	Date        Day
	RoomID      int64 `bun:",nullzero"`
	StartMinute *int
	EndMinute   *int
	NewClassID  int64 `bun:",nullzero"`
	NewStaff    bool
	Note        string
}

type DayChangeStaff struct {
	bun.BaseModel `bun:"table:day_change_staff"`

	BusinessID  int64 `bun:",pk"`
	DayChangeID int64 `bun:",pk"`
	StaffID     int64
	Position    int `bun:",pk"`
}

func (r *DayChange) Engine() engine.DayChange {
	c := engine.DayChange{
		Ref:       engine.SessionRef{Date: engine.Date(r.OrigDate), ClassTimeID: r.ClassTimeID, ClassID: r.ClassID},
		Cancelled: r.Cancelled, Date: engine.Date(r.Date), RoomID: r.RoomID, ClassID: r.NewClassID, Note: fit(r.Note, engine.NoteText),
	}
	if r.StartMinute != nil {
		t := engine.LocalTime(*r.StartMinute)
		c.Start = &t
	}
	if r.EndMinute != nil {
		t := engine.LocalTime(*r.EndMinute)
		c.End = &t
	}
	return c
}

// changeRow returns the row of a change without an id: a change is known by
// its session, and its row is replaced whenever it changes.
func changeRow(b int64, c engine.DayChange) DayChange {
	r := DayChange{
		BusinessID: b, OrigDate: Day(c.Ref.Date), ClassTimeID: c.Ref.ClassTimeID, ClassID: c.Ref.ClassID,
		Cancelled: c.Cancelled, Date: Day(c.Date), RoomID: c.RoomID, NewClassID: c.ClassID,
		NewStaff: c.StaffIDs != nil, Note: c.Note,
	}
	if c.Start != nil {
		m := c.Start.Minutes()
		r.StartMinute = &m
	}
	if c.End != nil {
		m := c.End.Minutes()
		r.EndMinute = &m
	}
	return r
}

type Closure struct {
	bun.BaseModel `bun:"table:closures"`

	versioned
	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	FromDate   Day
	ToDate     Day
	Reason     string
	Pause      bool
}

type ClosureRoom struct {
	bun.BaseModel `bun:"table:closure_rooms"`

	BusinessID int64 `bun:",pk"`
	ClosureID  int64 `bun:",pk"`
	RoomID     int64 `bun:",pk"`
}

func (r *Closure) Engine() engine.Closure {
	return engine.Closure{ID: r.ID, From: engine.Date(r.FromDate), To: engine.Date(r.ToDate), Reason: fit(r.Reason, engine.NoteText), Pause: r.Pause}
}

func closureRow(b int64, c engine.Closure) Closure {
	return Closure{ID: c.ID, BusinessID: b, FromDate: Day(c.From), ToDate: Day(c.To), Reason: c.Reason, Pause: c.Pause}
}

// RevisionTime is when a revision of a business was committed.
type RevisionTime struct {
	bun.BaseModel `bun:"table:revisions"`

	BusinessID    int64 `bun:",pk"`
	Revision      int64 `bun:",pk"`
	CommittedUnix int64
}

// Tombstone records what a write removed that sessions depended on, so
// that a session can still tell the revision that last changed it.
type Tombstone struct {
	bun.BaseModel `bun:"table:tombstones"`

	ID          int64 `bun:",pk,autoincrement"`
	BusinessID  int64 `bun:",pk"`
	Revision    int64
	Kind        string // "group", "change", "closure" (any range of dates: a closure, time off, hours), "pause"
	ClassTimeID int64  `bun:",nullzero"`
	ClassID     int64  `bun:",nullzero"`
	OrigDate    Day
	FromDate    Day
	ToDate      Day
}

type CapacityRule struct {
	bun.BaseModel `bun:"table:capacity_rules"`
	versioned

	ID          int64 `bun:",pk,autoincrement"`
	BusinessID  int64 `bun:",pk"`
	RoomID      int64
	Weekdays    string // comma-separated, 0 = Sunday
	FromDate    Day
	ToDate      Day
	StartMinute int
	EndMinute   int
	Units       int
}

func (r *CapacityRule) Engine() engine.CapacityRule {
	c := engine.CapacityRule{ID: r.ID, RoomID: r.RoomID, From: engine.Date(r.FromDate), To: engine.Date(r.ToDate),
		Start: engine.LocalTime(r.StartMinute), End: engine.LocalTime(r.EndMinute), Units: min(r.Units, engine.MaxUnits)}
	for _, f := range strings.Split(r.Weekdays, ",") {
		if n, err := strconv.Atoi(f); err == nil && !slices.Contains(c.Weekdays, time.Weekday(n)) {
			c.Weekdays = append(c.Weekdays, time.Weekday(n))
		}
	}
	return c
}

func capacityRow(b int64, c engine.CapacityRule) CapacityRule {
	days := make([]string, len(c.Weekdays))
	for i, d := range c.Weekdays {
		days[i] = strconv.Itoa(int(d))
	}
	return CapacityRule{ID: c.ID, BusinessID: b, RoomID: c.RoomID, Weekdays: strings.Join(days, ","), FromDate: Day(c.From), ToDate: Day(c.To),
		StartMinute: c.Start.Minutes(), EndMinute: c.End.Minutes(), Units: c.Units}
}

type RoomBooking struct {
	bun.BaseModel `bun:"table:room_bookings"`
	versioned

	ID          int64 `bun:",pk,autoincrement"`
	BusinessID  int64 `bun:",pk"`
	RoomID      int64
	Date        Day
	StartMinute int
	EndMinute   int
	Units       int
	ClientID    int64 `bun:",nullzero"`
	Note        string
	Cancelled   bool
}

func (r *RoomBooking) Engine() engine.RoomBooking {
	return engine.RoomBooking{ID: r.ID, RoomID: r.RoomID, Date: engine.Date(r.Date), Start: engine.LocalTime(r.StartMinute),
		End: engine.LocalTime(r.EndMinute), Units: min(r.Units, engine.MaxUnits), ClientID: r.ClientID, Note: fit(r.Note, engine.NoteText), Cancelled: r.Cancelled}
}

func roomBookingRow(b int64, r engine.RoomBooking) RoomBooking {
	return RoomBooking{ID: r.ID, BusinessID: b, RoomID: r.RoomID, Date: Day(r.Date), StartMinute: r.Start.Minutes(), EndMinute: r.End.Minutes(),
		Units: r.Units, ClientID: r.ClientID, Note: r.Note, Cancelled: r.Cancelled}
}

// fit reads a stored text as the engine's limits allow (engine/text.go):
// rows written before the limits may hold control characters or run
// longer, and a business must stay readable. Numbers are read with min()
// for the same reason. An edit of such a row stores it as read.
func fit(s string, t engine.Text) string {
	s, _ = t.Clean(s)
	return s
}

// TimeOff is a staff member's time off (engine.TimeOff): a rule, like a
// closure.
type TimeOff struct {
	bun.BaseModel `bun:"table:time_offs"`
	versioned

	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	StaffID    int64
	FromDate   Day
	ToDate     Day
	FromMinute int
	ToMinute   int // 0: the end of the last day
	Reason     string
}

func (r *TimeOff) Engine() engine.TimeOff {
	return engine.TimeOff{ID: r.ID, StaffID: r.StaffID, From: engine.Date(r.FromDate), To: engine.Date(r.ToDate),
		FromTime: engine.LocalTime(r.FromMinute), ToTime: engine.LocalTime(r.ToMinute), Reason: fit(r.Reason, engine.NoteText)}
}

func timeOffRow(b int64, o engine.TimeOff) TimeOff {
	return TimeOff{ID: o.ID, BusinessID: b, StaffID: o.StaffID, FromDate: Day(o.From), ToDate: Day(o.To),
		FromMinute: o.FromTime.Minutes(), ToMinute: o.ToTime.Minutes(), Reason: o.Reason}
}

// WorkingHours keeps its spans in one text, "weekday:start-end" in minutes,
// comma-separated (0 = Sunday): they are read and written whole.
type WorkingHours struct {
	bun.BaseModel `bun:"table:working_hours"`
	versioned

	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	StaffID    int64
	FromDate   Day
	Spans      string
}

func (r *WorkingHours) Engine() engine.WorkingHours {
	h := engine.WorkingHours{ID: r.ID, StaffID: r.StaffID, From: engine.Date(r.FromDate)}
	for _, f := range strings.Split(r.Spans, ",") {
		var wd, start, end int
		if _, err := fmt.Sscanf(f, "%d:%d-%d", &wd, &start, &end); err == nil {
			h.Spans = append(h.Spans, engine.HoursSpan{Weekday: time.Weekday(wd), Start: engine.LocalTime(start), End: engine.LocalTime(end)})
		}
	}
	return h
}

func hoursRow(b int64, h engine.WorkingHours) WorkingHours {
	spans := make([]string, len(h.Spans))
	for i, s := range h.Spans {
		spans[i] = fmt.Sprintf("%d:%d-%d", int(s.Weekday), s.Start.Minutes(), s.End.Minutes())
	}
	return WorkingHours{ID: h.ID, BusinessID: b, StaffID: h.StaffID, FromDate: Day(h.From), Spans: strings.Join(spans, ",")}
}

// StandingBooking is a client's standing place (engine.Standing): one rule,
// never a row per date.
type StandingBooking struct {
	bun.BaseModel `bun:"table:standing_bookings"`
	versioned

	ID          int64 `bun:",pk,autoincrement"`
	BusinessID  int64 `bun:",pk"`
	ClientID    int64
	ClassTimeID int64
	ClassID     int64
	FromDate    Day
	UntilDate   Day
	Waitlist    bool
}

func (r *StandingBooking) Engine() engine.Standing {
	return engine.Standing{ID: r.ID, ClientID: r.ClientID, ClassTimeID: r.ClassTimeID, ClassID: r.ClassID,
		From: engine.Date(r.FromDate), Until: engine.Date(r.UntilDate), Waitlist: r.Waitlist}
}

func standingRow(b int64, s engine.Standing) StandingBooking {
	return StandingBooking{ID: s.ID, BusinessID: b, ClientID: s.ClientID, ClassTimeID: s.ClassTimeID, ClassID: s.ClassID,
		FromDate: Day(s.From), UntilDate: Day(s.Until), Waitlist: s.Waitlist}
}

// StandingSkip is one date a standing place is given up (engine.StandingSkip).
type StandingSkip struct {
	bun.BaseModel `bun:"table:standing_skips"`
	versioned

	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	StandingID int64
	Date       Day
	Late       bool
}

func (r *StandingSkip) Engine() engine.StandingSkip {
	return engine.StandingSkip{ID: r.ID, StandingID: r.StandingID, Date: engine.Date(r.Date), Late: r.Late}
}

func standingSkipRow(b int64, s engine.StandingSkip) StandingSkip {
	return StandingSkip{ID: s.ID, BusinessID: b, StandingID: s.StandingID, Date: Day(s.Date), Late: s.Late}
}

// Qualification is an activity a staff member may give (engine.Qualification).
type Qualification struct {
	bun.BaseModel `bun:"table:qualifications"`
	versioned

	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	StaffID    int64
	ActivityID int64
}

func (r *Qualification) Engine() engine.Qualification {
	return engine.Qualification{ID: r.ID, StaffID: r.StaffID, ActivityID: r.ActivityID}
}

func qualificationRow(b int64, q engine.Qualification) Qualification {
	return Qualification{ID: q.ID, BusinessID: b, StaffID: q.StaffID, ActivityID: q.ActivityID}
}
