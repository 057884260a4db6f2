package reference

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/koredyne/schedule/engine"
)

// The row shapes of the format, in the order doc.go lists their fields.
type (
	xSetting struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	xNamed struct {
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
	}
	xClassCoach struct {
		ClassID   int64 `json:"class_id"`
		CoachID   int64 `json:"coach_id"`
		SortOrder int   `json:"sort_order"`
	}
	xSlot struct {
		ID            int64  `json:"id"`
		AreaID        int64  `json:"area_id"`
		Day           int    `json:"day"`
		StartTime     string `json:"start_time"`
		EndTime       string `json:"end_time"`
		Label         string `json:"label"`
		Capacity      int    `json:"capacity"`
		SessionType   string `json:"session_type"`
		BufferMinutes int    `json:"buffer_minutes"`
		Active        bool   `json:"active"`
	}
	xPackage struct {
		ID         int64   `json:"id"`
		Name       string  `json:"name"`
		StartDate  string  `json:"start_date"`
		EndDate    *string `json:"end_date"`
		CycleWeeks int     `json:"cycle_weeks"`
	}
	xEntry struct {
		ID        int64 `json:"id"`
		PackageID int64 `json:"package_id"`
		SlotID    int64 `json:"slot_id"`
		ClassID   int64 `json:"class_id"`
		Week      int   `json:"week"`
	}
	xPlan struct {
		ID               int64           `json:"id"`
		PackageID        int64           `json:"package_id"`
		Name             string          `json:"name"`
		SessionsPerMonth *int            `json:"sessions_per_month"`
		Months           int             `json:"months"`
		Price            json.RawMessage `json:"price"`
	}
	xMember struct {
		ID    int64  `json:"id"`
		Name  string `json:"name"`
		Email string `json:"email"`
		Phone string `json:"phone"`
	}
	xPackageMember struct {
		ID            int64   `json:"id"`
		MemberID      int64   `json:"member_id"`
		PackageID     int64   `json:"package_id"`
		PackagePlanID *int64  `json:"package_plan_id"`
		StartDate     string  `json:"start_date"`
		EndDate       *string `json:"end_date"`
	}
	xOneOff struct {
		ID            int64  `json:"id"`
		ClassID       int64  `json:"class_id"`
		AreaID        int64  `json:"area_id"`
		Date          string `json:"date"`
		StartTime     string `json:"start_time"`
		EndTime       string `json:"end_time"`
		Label         string `json:"label"`
		Capacity      int    `json:"capacity"`
		BufferMinutes int    `json:"buffer_minutes"`
		Cancelled     bool   `json:"cancelled"`
		Note          string `json:"note"`
	}
	xOneOffMember struct {
		OneOffID int64 `json:"one_off_id"`
		MemberID int64 `json:"member_id"`
	}
	xChange struct {
		ID           int64   `json:"id"`
		Date         string  `json:"date"`
		SlotID       int64   `json:"slot_id"`
		ClassID      int64   `json:"class_id"`
		Cancelled    bool    `json:"cancelled"`
		NewDate      *string `json:"new_date"`
		NewAreaID    *int64  `json:"new_area_id"`
		NewStartTime *string `json:"new_start_time"`
		NewEndTime   *string `json:"new_end_time"`
		NewClassID   *int64  `json:"new_class_id"`
		NewCoachIDs  []int64 `json:"new_coach_ids"`
		Note         string  `json:"note"`
	}
)

type xTables struct {
	Settings       []xSetting       `json:"settings"`
	Areas          []xNamed         `json:"areas"`
	Coaches        []xNamed         `json:"coaches"`
	Activities     []xActivity      `json:"activities"`
	Classes        []xClass         `json:"classes"`
	ClassCoaches   []xClassCoach    `json:"class_coaches"`
	Slots          []xSlot          `json:"slots"`
	Packages       []xPackage       `json:"packages"`
	PackageEntries []xEntry         `json:"package_entries"`
	PackagePlans   []xPlan          `json:"package_plans"`
	Members        []xMember        `json:"members"`
	PackageMembers []xPackageMember `json:"package_members"`
	OneOffs        []xOneOff        `json:"one_offs"`
	OneOffMembers  []xOneOffMember  `json:"one_off_members"`
	SessionChanges []xChange        `json:"session_changes"`
}

// Write writes a valid state in the reference format, so that what Read
// reads can be written back and compared. It refuses what the format cannot
// say — closures, capacity rules, room bookings, rooms of several units and
// sessions using part of a room — rather than drop it. Day changes are
// numbered from 1 in their order.
func Write(st engine.State) ([]byte, error) {
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
	x := xTables{Areas: []xNamed{}, Coaches: []xNamed{}, Activities: []xActivity{}, Classes: []xClass{}, ClassCoaches: []xClassCoach{},
		Slots: []xSlot{}, Packages: []xPackage{}, PackageEntries: []xEntry{}, PackagePlans: []xPlan{}, Members: []xMember{},
		PackageMembers: []xPackageMember{}, OneOffs: []xOneOff{}, OneOffMembers: []xOneOffMember{}, SessionChanges: []xChange{}}
	x.Settings = []xSetting{
		{keyName, b.Name}, {keyKind, string(b.Kind)}, {keyCurrency, b.Currency},
		{keyZone, b.Location.String()}, {keyWeekStart, strconv.Itoa(int(b.WeekStart))},
	}
	for _, r := range st.Rooms {
		if r.Capacity > 1 {
			refuse("room %q has %d units", r.Name, r.Capacity)
		}
		x.Areas = append(x.Areas, xNamed{r.ID, r.Name})
	}
	for _, s := range st.Staff {
		x.Coaches = append(x.Coaches, xNamed{s.ID, s.Name})
	}
	for _, a := range st.Activities {
		xa := xActivity{ID: a.ID, Name: a.Name}
		if a.Color != "" {
			xa.Color = &a.Color
		}
		x.Activities = append(x.Activities, xa)
	}
	for _, c := range st.Classes {
		x.Classes = append(x.Classes, xClass{c.ID, c.ActivityID})
		for i, s := range c.StaffIDs {
			x.ClassCoaches = append(x.ClassCoaches, xClassCoach{c.ID, s, i})
		}
	}
	for _, ct := range st.ClassTimes {
		if ct.Units != 0 {
			refuse("class time %d uses %d units of its room", ct.ID, ct.Units)
		}
		x.Slots = append(x.Slots, xSlot{ct.ID, ct.RoomID, int(ct.Weekday), ct.Start.String(), ct.End.String(),
			ct.Label, ct.Capacity, ct.Type, ct.Buffer, !ct.Inactive})
	}
	for _, s := range st.Series {
		x.Packages = append(x.Packages, xPackage{s.ID, s.Name, s.Anchor.String(), dateOrNil(s.End), s.Cycle})
	}
	for _, e := range st.Entries {
		x.PackageEntries = append(x.PackageEntries, xEntry{e.ID, e.SeriesID, e.ClassTimeID, e.ClassID, e.Week})
	}
	for _, p := range st.Plans {
		xp := xPlan{ID: p.ID, PackageID: p.SeriesID, Name: p.Name, Months: p.Months, Price: json.RawMessage(p.Price.String())}
		if p.PerMonth != 0 {
			xp.SessionsPerMonth = &p.PerMonth
		}
		x.PackagePlans = append(x.PackagePlans, xp)
	}
	for _, c := range st.Clients {
		x.Members = append(x.Members, xMember{c.ID, c.Name, c.Email, c.Phone})
	}
	for _, s := range st.Subscriptions {
		x.PackageMembers = append(x.PackageMembers, xPackageMember{s.ID, s.ClientID, s.SeriesID, idOrNil(s.PlanID), s.Start.String(), dateOrNil(s.End)})
	}
	for _, o := range st.OneOffs {
		if o.Units != 0 {
			refuse("one-off %d uses %d units of its room", o.ID, o.Units)
		}
		x.OneOffs = append(x.OneOffs, xOneOff{o.ID, o.ClassID, o.RoomID, o.Date.String(), o.Start.String(), o.End.String(),
			o.Label, o.Capacity, o.Buffer, o.Cancelled, o.Note})
		for _, c := range o.ClientIDs {
			x.OneOffMembers = append(x.OneOffMembers, xOneOffMember{o.ID, c})
		}
	}
	for i, c := range st.Changes {
		xc := xChange{ID: int64(i + 1), Date: c.Ref.Date.String(), SlotID: c.Ref.ClassTimeID, ClassID: c.Ref.ClassID,
			Cancelled: c.Cancelled, NewDate: dateOrNil(c.Date), NewAreaID: idOrNil(c.RoomID), NewClassID: idOrNil(c.ClassID),
			NewCoachIDs: c.StaffIDs, Note: c.Note}
		if c.Start != nil {
			s := c.Start.String()
			xc.NewStartTime = &s
		}
		if c.End != nil {
			s := c.End.String()
			xc.NewEndTime = &s
		}
		x.SessionChanges = append(x.SessionChanges, xc)
	}
	if len(why) > 0 {
		return nil, errors.New("the reference format cannot hold this data: " + strings.Join(why, "; "))
	}
	return json.MarshalIndent(struct {
		Format  string  `json:"format"`
		Version int     `json:"version"`
		Tables  xTables `json:"tables"`
	}{Format, Version, x}, "", "  ")
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
