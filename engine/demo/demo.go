package demo

import (
	"strconv"
	"strings"
	"time"

	// The demos load their IANA zones by name; embedding the database keeps
	// them working on machines without one.
	_ "time/tzdata"

	"github.com/koredyne/schedule/engine"
)

// ByKind returns the demo for a kind of business, built for the week holding
// week.
func ByKind(k engine.Kind, week engine.Date) (engine.State, bool) {
	switch k {
	case engine.Gym:
		return Gym(week), true
	case engine.Clinic:
		return Clinic(week), true
	case engine.Office:
		return Office(week), true
	}
	return engine.State{}, false
}

// zone loads an IANA time zone. With time/tzdata embedded the names used here
// always load, so a failure is a typo in this package.
func zone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

var weekdays = map[string]time.Weekday{
	"Sun": time.Sunday, "Mon": time.Monday, "Tue": time.Tuesday, "Wed": time.Wednesday,
	"Thu": time.Thursday, "Fri": time.Friday, "Sat": time.Saturday,
}

// on reads a list of days such as "Sun Tue Thu".
func on(days string) []time.Weekday {
	var out []time.Weekday
	for _, f := range strings.Fields(days) {
		wd, ok := weekdays[f]
		if !ok {
			panic("demo: unknown day " + f)
		}
		out = append(out, wd)
	}
	return out
}

// dayOf returns the date of weekday wd in the week that starts on week.
func dayOf(week engine.Date, wd time.Weekday) engine.Date {
	return week.AddDays((int(wd) - int(week.Weekday()) + 7) % 7)
}

func hm(s string) engine.LocalTime { return engine.MustTime(s) }

func staff(ids ...int64) []int64 { return ids }

// price turns whole currency units into engine.Money (thousandths).
func price(whole int64) engine.Money { return engine.Money(whole * 1000) }

// planName writes a plan the way the front desk says it: "12 a month · 1
// month", "unlimited · 3 months".
func planName(perMonth, months int) string {
	n := "unlimited"
	if perMonth > 0 {
		n = strconv.Itoa(perMonth) + " a month"
	}
	unit := " months"
	if months == 1 {
		unit = " month"
	}
	return n + " · " + strconv.Itoa(months) + unit
}

// email makes an address at domain from a person's name: "Noor Al-Sabah" →
// "noor.al-sabah@domain".
func email(name, domain string) string {
	return strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "@" + domain
}

// tables appends rows to a state, numbering each table from 1 in the order
// rows are added, so the same demo always gets the same ids.
type tables struct {
	s engine.State
}

func (t *tables) classTime(ct engine.ClassTime) int64 {
	ct.ID = int64(len(t.s.ClassTimes) + 1)
	t.s.ClassTimes = append(t.s.ClassTimes, ct)
	return ct.ID
}

func (t *tables) entry(series, classTime, class int64, week int) {
	t.s.Entries = append(t.s.Entries, engine.Entry{
		ID: int64(len(t.s.Entries) + 1), SeriesID: series, ClassTimeID: classTime, ClassID: class, Week: week,
	})
}

func (t *tables) plan(series int64, perMonth, months int, amount engine.Money) {
	t.s.Plans = append(t.s.Plans, engine.Plan{
		ID: int64(len(t.s.Plans) + 1), SeriesID: series, Name: planName(perMonth, months),
		PerMonth: perMonth, Months: months, Price: amount,
	})
}

func (t *tables) client(name, mail, phone string) int64 {
	id := int64(len(t.s.Clients) + 1)
	t.s.Clients = append(t.s.Clients, engine.Client{ID: id, Name: name, Email: mail, Phone: phone})
	return id
}

// subscribe puts a client on a series through its plan named plan (see
// planName), from start for the plan's months; plan "" subscribes without a
// plan from start to end.
func (t *tables) subscribe(client, series int64, plan string, start, end engine.Date) {
	var planID int64
	if plan != "" {
		for _, p := range t.s.Plans {
			if p.SeriesID == series && p.Name == plan {
				planID = p.ID
				if end == 0 {
					end = engine.Expiry(start, p.Months)
				}
			}
		}
		if planID == 0 {
			panic("demo: series has no plan " + plan)
		}
	}
	t.s.Subscriptions = append(t.s.Subscriptions, engine.Subscription{
		ID: int64(len(t.s.Subscriptions) + 1), ClientID: client, SeriesID: series, PlanID: planID, Start: start, End: end,
	})
}

func (t *tables) oneOff(o engine.OneOff) {
	o.ID = int64(len(t.s.OneOffs) + 1)
	t.s.OneOffs = append(t.s.OneOffs, o)
}

// classTimeAt finds the one class time in room on weekday wd starting at
// start; day changes name the session they change this way, as a person would.
func (t *tables) classTimeAt(room int64, wd time.Weekday, start string) int64 {
	var id int64
	for _, ct := range t.s.ClassTimes {
		if ct.RoomID == room && ct.Weekday == wd && ct.Start == hm(start) {
			if id != 0 {
				panic("demo: two class times at " + wd.String() + " " + start)
			}
			id = ct.ID
		}
	}
	if id == 0 {
		panic("demo: no class time at " + wd.String() + " " + start)
	}
	return id
}
