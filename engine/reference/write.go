package reference

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/koredyne/schedule/engine"
)

// The row shapes of the format: the reference's SQLite columns.
type (
	xSetting struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	xArea struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
		Sort int    `json:"sort"`
	}
	xCoach struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	xActivity struct {
		ID    int64   `json:"id"`
		Name  string  `json:"name"`
		Color *string `json:"color"`
	}
	xClass struct {
		ID         int64 `json:"id"`
		ActivityID int64 `json:"activity_id"`
		CoachID    int64 `json:"coach_id"`
	}
	xClassCoach struct {
		ClassID int64 `json:"class_id"`
		CoachID int64 `json:"coach_id"`
		Sort    int   `json:"sort"`
	}
	xSlot struct {
		ID            int64   `json:"id"`
		AreaID        int64   `json:"area_id"`
		Day           int     `json:"day"`
		StartTime     string  `json:"start_time"`
		EndTime       string  `json:"end_time"`
		Label         *string `json:"label"`
		Capacity      *int    `json:"capacity"`
		Type          *string `json:"type"`
		BufferMinutes int     `json:"buffer_minutes"`
		Active        int     `json:"active"`
	}
	xPackage struct {
		ID          int64   `json:"id"`
		Name        string  `json:"name"`
		AnchorDate  string  `json:"anchor_date"`
		EndDate     *string `json:"end_date"`
		CycleLength int     `json:"cycle_length"`
	}
	xPlan struct {
		ID              int64           `json:"id"`
		PackageID       int64           `json:"package_id"`
		Label           *string         `json:"label"`
		ClassesPerMonth *int            `json:"classes_per_month"`
		Months          int             `json:"months"`
		Price           json.RawMessage `json:"price"`
	}
	xMember struct {
		ID    int64   `json:"id"`
		Name  string  `json:"name"`
		Email *string `json:"email"`
	}
	xPackageMember struct {
		PackageID int64   `json:"package_id"`
		MemberID  int64   `json:"member_id"`
		PlanID    *int64  `json:"plan_id"`
		StartDate string  `json:"start_date"`
		EndDate   *string `json:"end_date"`
	}
	xEntry struct {
		ID           int64 `json:"id"`
		PackageID    int64 `json:"package_id"`
		SlotID       int64 `json:"slot_id"`
		ClassID      int64 `json:"class_id"`
		WeekPosition int   `json:"week_position"`
	}
	xOneOff struct {
		ID        int64   `json:"id"`
		Date      string  `json:"date"`
		AreaID    int64   `json:"area_id"`
		ClassID   int64   `json:"class_id"`
		StartTime string  `json:"start_time"`
		EndTime   string  `json:"end_time"`
		Label     *string `json:"label"`
		Note      *string `json:"note"`
	}
	xOneOffMember struct {
		OneOffID int64 `json:"one_off_id"`
		MemberID int64 `json:"member_id"`
	}
	xChange struct {
		ID         int64   `json:"id"`
		Date       string  `json:"date"`
		SlotID     int64   `json:"slot_id"`
		ClassID    int64   `json:"class_id"`
		Cancelled  int     `json:"cancelled"`
		NewDate    *string `json:"new_date"`
		AreaID     *int64  `json:"area_id"`
		StartTime  *string `json:"start_time"`
		EndTime    *string `json:"end_time"`
		NewClassID *int64  `json:"new_class_id"`
		Note       *string `json:"note"`
	}
)

// xTables lists the tables in the order the reference writes them (by name).
type xTables struct {
	Activities     []xActivity      `json:"activities"`
	Areas          []xArea          `json:"areas"`
	ClassCoaches   []xClassCoach    `json:"class_coaches"`
	Classes        []xClass         `json:"classes"`
	Coaches        []xCoach         `json:"coaches"`
	Members        []xMember        `json:"members"`
	OneOffMembers  []xOneOffMember  `json:"one_off_members"`
	OneOffs        []xOneOff        `json:"one_offs"`
	PackageEntries []xEntry         `json:"package_entries"`
	PackageMembers []xPackageMember `json:"package_members"`
	PackagePlans   []xPlan          `json:"package_plans"`
	Packages       []xPackage       `json:"packages"`
	SessionChanges []xChange        `json:"session_changes"`
	Settings       []xSetting       `json:"settings"`
	Slots          []xSlot          `json:"slots"`
}

// Write writes a valid state in the reference format, so that what Read
// reads can be written back and compared. It refuses what the format cannot
// say — closures, capacity rules, room bookings, rooms of several units,
// sessions using part of a room, one-offs with places, cleaning time or a
// cancellation, covers by other staff, client phones, a client on one series
// twice — rather than drop it. The time zone and week start are not part of
// the format. Day changes are numbered from 1 in their order; exportedAt is
// the instant given.
func Write(st engine.State, exportedAt time.Time) ([]byte, error) {
	if err := engine.Validate(st); err != nil {
		return nil, fmt.Errorf("the state is not valid: %w", err)
	}
	var why []string
	refuse := func(format string, args ...any) { why = append(why, fmt.Sprintf(format, args...)) }
	if len(st.Closures) > 0 {
		refuse("it has closures")
	}
	if len(st.Capacity) > 0 {
		refuse("it has capacity rules")
	}
	if len(st.RoomBookings) > 0 {
		refuse("it has room bookings")
	}
	b := st.Business
	x := xTables{Areas: []xArea{}, Coaches: []xCoach{}, Activities: []xActivity{}, Classes: []xClass{}, ClassCoaches: []xClassCoach{},
		Slots: []xSlot{}, Packages: []xPackage{}, PackageEntries: []xEntry{}, PackagePlans: []xPlan{}, Members: []xMember{},
		PackageMembers: []xPackageMember{}, OneOffs: []xOneOff{}, OneOffMembers: []xOneOffMember{}, SessionChanges: []xChange{}}
	x.Settings = []xSetting{{keyKind, string(b.Kind)}, {keyName, b.Name}, {keyCurrency, b.Currency}}
	for i, r := range st.Rooms {
		if r.Capacity > 1 {
			refuse("room %q has %d units", r.Name, r.Capacity)
		}
		x.Areas = append(x.Areas, xArea{r.ID, r.Name, i})
	}
	for _, s := range st.Staff {
		x.Coaches = append(x.Coaches, xCoach{s.ID, s.Name})
	}
	for _, a := range st.Activities {
		x.Activities = append(x.Activities, xActivity{a.ID, a.Name, textOrNil(a.Color)})
	}
	for _, c := range st.Classes {
		x.Classes = append(x.Classes, xClass{c.ID, c.ActivityID, c.StaffIDs[0]})
		for i, s := range c.StaffIDs[1:] {
			x.ClassCoaches = append(x.ClassCoaches, xClassCoach{c.ID, s, i})
		}
	}
	for _, ct := range st.ClassTimes {
		if ct.Units != 0 {
			refuse("class time %d uses %d units of its room", ct.ID, ct.Units)
		}
		xs := xSlot{ID: ct.ID, AreaID: ct.RoomID, Day: int(ct.Weekday), StartTime: ct.Start.String(), EndTime: ct.End.String(),
			Label: textOrNil(ct.Label), Type: textOrNil(ct.Type), BufferMinutes: ct.Buffer, Active: 1}
		if ct.Capacity != 0 {
			xs.Capacity = &ct.Capacity
		}
		if ct.Inactive {
			xs.Active = 0
		}
		x.Slots = append(x.Slots, xs)
	}
	for _, s := range st.Series {
		x.Packages = append(x.Packages, xPackage{s.ID, s.Name, s.Anchor.String(), dateOrNil(s.End), s.Cycle})
	}
	for _, e := range st.Entries {
		x.PackageEntries = append(x.PackageEntries, xEntry{e.ID, e.SeriesID, e.ClassTimeID, e.ClassID, e.Week})
	}
	for _, p := range st.Plans {
		xp := xPlan{ID: p.ID, PackageID: p.SeriesID, Label: textOrNil(p.Name), Months: p.Months, Price: json.RawMessage(p.Price.String())}
		if p.PerMonth != 0 {
			xp.ClassesPerMonth = &p.PerMonth
		}
		x.PackagePlans = append(x.PackagePlans, xp)
	}
	for _, c := range st.Clients {
		if c.Phone != "" {
			refuse("client %q has a phone number", c.Name)
		}
		x.Members = append(x.Members, xMember{c.ID, c.Name, textOrNil(c.Email)})
	}
	type on struct{ series, client int64 }
	subscribed := map[on]bool{}
	for _, s := range st.Subscriptions {
		if subscribed[on{s.SeriesID, s.ClientID}] {
			refuse("client %d is on series %d twice", s.ClientID, s.SeriesID)
		}
		subscribed[on{s.SeriesID, s.ClientID}] = true
		x.PackageMembers = append(x.PackageMembers, xPackageMember{s.SeriesID, s.ClientID, idOrNil(s.PlanID), s.Start.String(), dateOrNil(s.End)})
	}
	for _, o := range st.OneOffs {
		if o.Units != 0 || o.Capacity != 0 || o.Buffer != 0 || o.Cancelled {
			refuse("one-off %d has units, places, cleaning time or a cancellation", o.ID)
		}
		x.OneOffs = append(x.OneOffs, xOneOff{o.ID, o.Date.String(), o.RoomID, o.ClassID, o.Start.String(), o.End.String(),
			textOrNil(o.Label), textOrNil(o.Note)})
		for _, c := range o.ClientIDs {
			x.OneOffMembers = append(x.OneOffMembers, xOneOffMember{o.ID, c})
		}
	}
	for i, c := range st.Changes {
		if c.StaffIDs != nil {
			refuse("the session on %s is covered by other staff", c.Ref.Date)
		}
		xc := xChange{ID: int64(i + 1), Date: c.Ref.Date.String(), SlotID: c.Ref.ClassTimeID, ClassID: c.Ref.ClassID,
			NewDate: dateOrNil(c.Date), AreaID: idOrNil(c.RoomID), NewClassID: idOrNil(c.ClassID), Note: textOrNil(c.Note)}
		if c.Cancelled {
			xc.Cancelled = 1
		}
		if c.Start != nil {
			xc.StartTime = textOrNil(c.Start.String())
		}
		if c.End != nil {
			xc.EndTime = textOrNil(c.End.String())
		}
		x.SessionChanges = append(x.SessionChanges, xc)
	}
	if len(why) > 0 {
		return nil, errors.New("the reference format cannot hold this data: " + strings.Join(why, "; "))
	}
	return json.MarshalIndent(struct {
		Format     string  `json:"format"`
		Version    int     `json:"version"`
		ExportedAt string  `json:"exportedAt"`
		Tables     xTables `json:"tables"`
	}{Format, Version, exportedAt.UTC().Format("2006-01-02T15:04:05.000Z"), x}, "", "  ")
}

func dateOrNil(d engine.Date) *string {
	if d == 0 {
		return nil
	}
	s := d.String()
	return &s
}

func idOrNil(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// textOrNil writes empty text as null, as the reference stores it.
func textOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
