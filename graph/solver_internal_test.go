package graph

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/solve"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models/locale"
)

// englishReason is reasonText as it was written before the catalogues had
// its words: the English reference the catalogue's English must match.
func englishReason(p solve.Problem, li int, u *model.UnplacedLine, placed int) string {
	l := p.Lines[li]
	need := fmt.Sprintf("%d a week", l.Sessions)
	if l.PerRotation {
		need = fmt.Sprintf("%d a rotation", l.Sessions)
	}
	var parts []string
	for _, c := range u.Constraints {
		var who string
		if c.Staff != nil {
			who = c.Staff.Name + "'s"
		}
		if c.Room != nil {
			who = c.Room.Name + "'s"
		}
		switch c.Kind {
		case "noStaff":
			parts = append(parts, "no one qualified to give it")
		case solve.NoRoom:
			parts = append(parts, "no room")
		case solve.DayBounds:
			parts = append(parts, "the day's earliest and latest times")
		case solve.Hours:
			parts = append(parts, who+" hours")
		case solve.TimeOff:
			parts = append(parts, who+" time off")
		case solve.StaffBusy, solve.RoomBusy:
			parts = append(parts, who+" other sessions")
		case solve.StaffLimit:
			parts = append(parts, who+" limits")
		case solve.RoomCapacity:
			parts = append(parts, who+" capacity and closed times")
		case "timetable":
			parts = append(parts, "the timetable's dated changes")
		}
	}
	why := "the rules"
	switch len(parts) {
	case 0:
	case 1:
		why = parts[0]
	default:
		why = strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	total := l.Sessions
	if !l.PerRotation {
		weeks := len(l.Weeks)
		if weeks == 0 {
			weeks = p.Frame.Cycle
		}
		total *= weeks
		if weeks > 1 {
			need += fmt.Sprintf(" (%d in %d weeks)", total, weeks)
		}
	}
	return fmt.Sprintf("%s needs %s; %s leave room for %d", l.Name, need, why, placed)
}

// TestProposeReasonEnglishAsBefore: in English, the catalogue's reasons
// are byte for byte what the code wrote before it had a catalogue, over
// random lines and constraints of every kind.
func TestProposeReasonEnglishAsBefore(t *testing.T) {
	en := locale.For(engine.Locale{}, "")
	staff := []engine.Staff{{ID: 1, Name: "Coach B"}, {ID: 2, Name: "Omar"}}
	rooms := []engine.Room{{ID: 1, Name: "Studio"}, {ID: 2, Name: "Mat Room"}}
	staffKinds := []string{solve.Hours, solve.TimeOff, solve.StaffBusy, solve.StaffLimit}
	roomKinds := []string{solve.RoomBusy, solve.RoomCapacity}
	plain := []string{"noStaff", solve.NoRoom, solve.DayBounds, "timetable"}
	rng := rand.New(rand.NewPCG(3, 5))
	for i := range 2000 {
		line := solve.Line{Name: []string{"Yoga", "Mobility"}[i%2], Sessions: rng.IntN(30), PerRotation: rng.IntN(3) == 0}
		for w := range rng.IntN(4) {
			line.Weeks = append(line.Weeks, w+1)
		}
		p := solve.Problem{Frame: solve.Frame{Cycle: 1 + rng.IntN(8)}, Lines: []solve.Line{line}}
		u := &model.UnplacedLine{}
		for range rng.IntN(5) {
			var c model.UnplacedConstraint
			switch rng.IntN(3) {
			case 0:
				c.Kind, c.Staff = staffKinds[rng.IntN(len(staffKinds))], &staff[rng.IntN(len(staff))]
			case 1:
				c.Kind, c.Room = roomKinds[rng.IntN(len(roomKinds))], &rooms[rng.IntN(len(rooms))]
			default:
				c.Kind = plain[rng.IntN(len(plain))]
			}
			u.Constraints = append(u.Constraints, c)
		}
		placed := rng.IntN(40)
		if got, want := reasonText(en, p, 0, u, placed), englishReason(p, 0, u, placed); got != want {
			t.Fatalf("got  %q\nwant %q", got, want)
		}
	}
}
