package engine

import (
	"time"
)

// Kind is what sort of business a tenant is; it chooses the words (vocab.go).
type Kind string

const (
	Gym    Kind = "gym"
	Clinic Kind = "clinic"
	Office Kind = "office"
)

// Business holds the settings of one tenant.
type Business struct {
	Kind     Kind
	Name     string
	Currency string
	// Location is the business's IANA time zone, loaded by the caller. It is
	// only used where a civil time becomes an instant.
	Location *time.Location
	// WeekStart is Sunday (the default, the zero value) or Monday. Series
	// anchors and ends fall on it.
	WeekStart time.Weekday
	// Locale is the language the business's words are in and how it writes
	// days and times; the engine only carries it (words are the edges').
	Locale Locale
}

// Locale is a business's language and the facts of writing that come with
// it. The zero value is English with the language's defaults.
type Locale struct {
	// Language is a BCP 47 language the catalogues have ("ar", "tr", "ru",
	// "en"); "" is English.
	Language string
	// FirstDay is the first day of a displayed week, plus one (Sunday is 1);
	// 0 is the language's default. It is apart from the business's WeekStart,
	// which the rotation counts weeks from.
	FirstDay int8
	// Clock is 12 or 24 (hours); 0 is the language's default.
	Clock int8
	// Digits is the CLDR numbering system digits are written in ("latn",
	// "arab"); "" is the language's default.
	Digits string
}

// Room is a physical space. Capacity is in units (lanes, mats, desks); zero
// means the default of 1.
type Room struct {
	ID       int64
	Name     string
	Capacity int
}

// Units returns the room's capacity, applying the default of 1.
func (r Room) Units() int {
	if r.Capacity <= 0 {
		return 1
	}
	return r.Capacity
}

// Staff is a person who runs sessions. Two staff with the same name, compared
// without case, are the same person to the clash rules.
type Staff struct {
	ID   int64
	Name string
}

// Activity is what is done in a session.
type Activity struct {
	ID    int64
	Name  string
	Color string
}

// Class is an activity given by an ordered list of staff; the first is the
// main one. No two classes share an activity and a staff set.
type Class struct {
	ID         int64
	ActivityID int64
	StaffIDs   []int64
}

// ClassTime is where and when: a room, a weekday and a wall-clock span.
type ClassTime struct {
	ID      int64
	RoomID  int64
	Weekday time.Weekday
	Start   LocalTime
	End     LocalTime
	Label   string
	// Capacity is how many clients may book a session; zero means no limit.
	Capacity int
	Type     string
	// Buffer is the cleaning time in minutes the room stays taken after a
	// session ends.
	Buffer int
	// Inactive class times produce no sessions (and so never clash).
	Inactive bool
	// Units is how much of the room a session uses; zero means all of it.
	Units int
}

// Series is a repeating unit that is sold: from the anchor week, every week
// holds week Position of a Cycle-week rotation, until the exclusive End.
type Series struct {
	ID     int64
	Name   string
	Anchor Date // on the business's week start
	End    Date // exclusive, on the week start; zero = open-ended
	Cycle  int  // weeks, 1–52
}

// Entry puts a class in a class time in week Week (1..Cycle) of a series.
type Entry struct {
	ID          int64
	SeriesID    int64
	ClassTimeID int64
	ClassID     int64
	Week        int
}

// Plan is one way of selling a series.
type Plan struct {
	ID       int64
	SeriesID int64
	Name     string
	// PerMonth is the number of sessions a month; zero means unlimited.
	PerMonth int
	Months   int
	Price    Money
}

// Client is someone who buys: a member, a patient, a client company.
type Client struct {
	ID    int64
	Name  string
	Email string
	Phone string
}

// Subscription puts a client on a series, optionally through a plan, from
// Start to End inclusive.
type Subscription struct {
	ID       int64
	ClientID int64
	SeriesID int64
	PlanID   int64 // zero: on the series without a plan
	Start    Date
	End      Date // inclusive; zero = open
}

// OneOff is a single dated session outside any series.
type OneOff struct {
	ID        int64
	ClassID   int64
	RoomID    int64
	Date      Date
	Start     LocalTime
	End       LocalTime
	Label     string
	Capacity  int
	Buffer    int
	Units     int // zero: all of the room
	ClientIDs []int64
	Cancelled bool
	Note      string
}

// SessionRef names a series session by where it originally falls: its date,
// class time and class. Every series that includes the class shares it.
type SessionRef struct {
	Date        Date
	ClassTimeID int64
	ClassID     int64
}

// DayChange is one series session changed on one date, stored as the
// difference from the original: a zero field (nil pointer, zero id, empty
// note) means "as usual".
type DayChange struct {
	Ref       SessionRef
	Cancelled bool
	Date      Date       // moved to another date
	RoomID    int64      // moved to another room
	Start     *LocalTime // re-timed
	End       *LocalTime
	ClassID   int64   // another class instead
	StaffIDs  []int64 // other staff (a cover)
	Note      string
}

// Closure closes From..To inclusive, for every room or the listed ones. A
// closure that covers a whole week and pauses rotations holds the rotation of
// every series whose rooms it closes.
type Closure struct {
	ID      int64
	From    Date
	To      Date    // inclusive
	RoomIDs []int64 // empty: every room
	Reason  string
	Pause   bool
}

// CapacityRule declares how many units a room has over a wall-clock span.
// A weekly rule holds on its weekdays every week; an override (From..To set)
// holds on every day of that range, where the room's overrides replace its
// weekly rules. Levels are absolute, not added; time a room with rules has
// no rule for has no capacity. A room without rules has its plain capacity
// all day.
type CapacityRule struct {
	ID         int64
	RoomID     int64
	Weekdays   []time.Weekday // weekly rules
	From, To   Date           // overrides: inclusive range
	Start, End LocalTime
	Units      int
}

// Override reports whether the rule holds on a date range rather than weekly.
func (r *CapacityRule) Override() bool { return r.From != 0 }

// RoomBooking takes units of a room for a span of one date: a lane, a desk,
// a meeting room rented by the hour. It counts against the room's capacity
// like a session.
type RoomBooking struct {
	ID         int64
	RoomID     int64
	Date       Date
	Start, End LocalTime
	Units      int   // zero: all of the room
	ClientID   int64 // who booked, if a client
	Note       string
	Cancelled  bool
}

// Standing is a client's standing place: one rule that holds a place in
// every occurrence of one series session (a class time and class) whose
// original date is From..Until, wherever a day change puts it. No row per
// date is ever stored; what happened on one date is (a StandingSkip).
type Standing struct {
	ID          int64
	ClientID    int64
	ClassTimeID int64
	ClassID     int64
	From        Date
	Until       Date // inclusive; zero = no end
	// Waitlist: the client accepted to wait on the dates that were full
	// when the place was made. A place without it holds every date, and
	// the capacity proof keeps it so.
	Waitlist bool
}

// Covers reports whether the rule reaches the session of original date d.
func (s *Standing) Covers(d Date) bool { return d >= s.From && (s.Until == 0 || d <= s.Until) }

// StandingSkip is one date a standing place is given up: the session's
// original date. Late: within the late-cancellation window of its start,
// so it counts on the client's plan like a late cancellation.
type StandingSkip struct {
	ID         int64
	StandingID int64
	Date       Date
	Late       bool
}

// State is everything the engine knows about one business: the rules and the
// exceptions, never the sessions they produce.
type State struct {
	Business      Business
	Rooms         []Room
	Staff         []Staff
	Activities    []Activity
	Classes       []Class
	ClassTimes    []ClassTime
	Series        []Series
	Entries       []Entry
	Plans         []Plan
	Clients       []Client
	Subscriptions []Subscription
	OneOffs       []OneOff
	Changes       []DayChange
	Closures      []Closure
	Capacity      []CapacityRule
	RoomBookings  []RoomBooking
	Standing      []Standing
	StandingSkips []StandingSkip
	// TimeOffs and Hours say when staff are away or work (cover.go): rules
	// like closures, read for any date.
	TimeOffs []TimeOff
	Hours    []WorkingHours
	// Qualifications are the activities staff may give (coverage.go).
	Qualifications []Qualification
}

// Session is computed: one occurrence on a real date. A week of a business
// is hundreds of them, made afresh for every question asked, so a session
// holds what every session has and keeps what few have (why it is
// cancelled, how it is changed, a note) behind one pointer, nil on most:
// its size is what resolving costs beyond the engine's own work.
type Session struct {
	Date        Date
	Start, End  LocalTime
	RoomID      int64
	ClassID     int64
	ClassTimeID int64 // zero for a one-off
	OneOffID    int64 // zero for a series session
	StaffIDs    []int64
	Label       string
	// Series lists every series that includes this session, with its week.
	Series   []SeriesWeek
	Capacity int32
	Units    int32 // units of the room it uses
	Buffer   int32
	// Cancelled sessions are kept and flagged; Reason says why (the note of
	// the cancellation or the closure's reason).
	Cancelled bool
	// Changed sessions differ from their series' rule on this date; Origin is
	// what the session normally is.
	Changed bool
	remarks *remarks
}

// remarks is what a session carries beyond its rule. A session's remarks
// are never changed in place: sessions copied from one another may share
// them.
type remarks struct {
	origin       Origin
	reason, note string
}

// Origin is what a changed session normally is, nil for one that is not
// changed.
func (s *Session) Origin() *Origin {
	if s.remarks == nil || !s.Changed {
		return nil
	}
	return &s.remarks.origin
}

// Reason is why a cancelled session is cancelled: the note of the
// cancellation or the closure's reason.
func (s *Session) Reason() string {
	if s.remarks == nil {
		return ""
	}
	return s.remarks.reason
}

// Note is the note of the session's day change or one-off.
func (s *Session) Note() string {
	if s.remarks == nil {
		return ""
	}
	return s.remarks.note
}

// remark sets what edit sets on a copy of the session's remarks.
func (s *Session) remark(edit func(*remarks)) {
	r := new(remarks)
	if s.remarks != nil {
		*r = *s.remarks
	}
	edit(r)
	s.remarks = r
}

// Ref is the session's identity, where it originally falls; zero for a
// one-off.
func (s *Session) Ref() SessionRef {
	if s.OneOffID != 0 {
		return SessionRef{}
	}
	if o := s.Origin(); o != nil {
		return SessionRef{Date: o.Date, ClassTimeID: s.ClassTimeID, ClassID: o.ClassID}
	}
	return SessionRef{Date: s.Date, ClassTimeID: s.ClassTimeID, ClassID: s.ClassID}
}

// SeriesWeek is one series a session belongs to and its week in the rotation.
type SeriesWeek struct {
	SeriesID int64
	Week     int
	Cycle    int
}

// Origin is what a changed session normally is.
type Origin struct {
	Date       Date
	Start, End LocalTime
	RoomID     int64
	ClassID    int64
	StaffIDs   []int64
}

// AsOrigin is what the session is, as an Origin records it.
func (s *Session) AsOrigin() Origin {
	return Origin{Date: s.Date, Start: s.Start, End: s.End, RoomID: s.RoomID, ClassID: s.ClassID, StaffIDs: s.StaffIDs}
}

// IsOneOff reports whether the session is a one-off rather than a series
// session.
func (s *Session) IsOneOff() bool { return s.OneOffID != 0 }

// Moved reports whether the session happens on another date than it
// normally does.
func (s *Session) Moved() bool { o := s.Origin(); return o != nil && o.Date != s.Date }

// Instants returns when the session starts and ends in loc (see Date.At). A
// session whose start falls in a spring-forward gap keeps its length: 02:30
// to 03:30 on the Berlin spring-forward day runs 03:30 to 04:30 CEST, never
// ending as it starts.
func (s *Session) Instants(loc *time.Location) (start, end time.Time) {
	start, end = s.Date.At(s.Start, loc), s.Date.At(s.End, loc)
	if !end.After(start) {
		end = start.Add(time.Duration(s.End-s.Start) * time.Minute)
	}
	return start, end
}
