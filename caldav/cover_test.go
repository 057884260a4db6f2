package caldav_test

import (
	"context"
	"strings"
	"testing"

	"github.com/emersion/go-ical"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestNeedsCoverInFeeds records a week's time off for a coach: in the
// business's feed, the sessions of that week that are theirs are
// STATUS:TENTATIVE with a "Needs cover" line naming them (never the
// time off's reason) and a new SEQUENCE, and every other event is as it
// was.
func TestNeedsCoverInFeeds(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			g := newGateway(t, d, "away", engine.Gym, 0, 3)
			sn, err := g.store.Snapshot(context.Background(), g.biz.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			coach := sn.State.Staff[0]
			from := engine.DateOf(now) + 7
			parse := func() []ical.Event {
				body := read(t, get(t, g.feed("all"), ""))
				cal, err := ical.NewDecoder(strings.NewReader(body)).Decode()
				if err != nil {
					t.Fatal(err)
				}
				return cal.Events()
			}
			before, sequence := map[string]string{}, map[string]string{}
			for _, ev := range parse() {
				uid, _ := ev.Props.Get("UID").Text()
				status, _ := ev.Props.Get("STATUS").Text()
				before[uid] = status
				sequence[uid] = ev.Props.Get("SEQUENCE").Value
			}
			g.write(func(e *models.Edit) error {
				e.AllowNeedsCover = true
				e.State.TimeOffs = append(e.State.TimeOffs, engine.TimeOff{ID: e.NewID(), StaffID: coach.ID, From: from, To: from + 6, Reason: "Private matter"})
				return nil
			})
			tentative := 0
			for _, ev := range parse() {
				uid, _ := ev.Props.Get("UID").Text()
				status, _ := ev.Props.Get("STATUS").Text()
				desc, _ := ev.Props.Get("DESCRIPTION").Text()
				start, err := ev.DateTimeStart(nil)
				if err != nil {
					t.Fatal(err)
				}
				day := engine.DateOf(start.In(sn.State.Business.Location))
				mine := strings.Contains(desc, ": "+coach.Name) || strings.Contains(desc, ", "+coach.Name)
				switch {
				case status == "TENTATIVE" && before[uid] != "TENTATIVE": // the demo's own coach away is tentative already
					tentative++
					if seq := ev.Props.Get("SEQUENCE").Value; seq == sequence[uid] {
						t.Errorf("%s: SEQUENCE %s did not move", uid, seq)
					}
					if day < from || day > from+6 || !mine {
						t.Errorf("%s on %s is tentative, but is not %s's in the time off", uid, day, coach.Name)
					}
					if !strings.Contains(desc, "Needs cover: "+coach.Name+" (time off)") || strings.Contains(desc, "Private matter") {
						t.Errorf("%s: description %q", uid, desc)
					}
				case status != before[uid]:
					t.Errorf("%s: status %s, was %s", uid, status, before[uid])
				case day >= from && day <= from+6 && mine && status != "CANCELLED":
					t.Errorf("%s on %s is %s's in the time off, but %s", uid, day, coach.Name, status)
				}
			}
			if tentative == 0 {
				t.Fatalf("no event of %s's week away is tentative", coach.Name)
			}
		})
	}
}
