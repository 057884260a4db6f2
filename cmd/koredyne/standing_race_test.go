package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/koredyne/schedule/models/modelstest"
)

// The standing race: 2 server processes on one PostgreSQL, 40 clients at
// once taking the last places of a weekly session of 3, half by standing
// bookings (from its first date or the week after) and half by single
// bookings of its first date, 20 rounds (one session each). Places given
// never exceed 3 on any date, every place a server confirmed is stored,
// every refusal is CAPACITY_FULL, and both servers show what is stored.
const (
	standingProcesses = 2
	standingClients   = 40
	standingRounds    = 20
	standingPlaces    = 3
)

func TestStandingRace(t *testing.T) {
	pg, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	servers := startProcesses(t, buildMain(t), pg.DSN, standingProcesses)
	u := servers[0]
	do := func(q string, vars map[string]any) map[string]any {
		t.Helper()
		data, errs := post(t, u, bootstrapToken, q, vars)
		if len(errs) > 0 {
			t.Fatalf("%.80s: %v", q, errs)
		}
		return data
	}
	get := func(v any, keys ...string) any {
		for _, k := range keys {
			v = v.(map[string]any)[k]
		}
		return v
	}
	// A series from next week holding one session of 3 places a round, at
	// hour h of its weekday; every client a member of it.
	weekdays := []string{"SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY"}
	ws := get(do(`{ business { weekStart } }`, nil), "business", "weekStart").(string)
	start := time.Now().UTC().AddDate(0, 0, 8)
	for weekdays[start.Weekday()] != ws {
		start = start.AddDate(0, 0, 1)
	}
	day := start.AddDate(0, 0, 2) // the race's date, in the series' first week
	date := func(weeks int) string { return day.AddDate(0, 0, 7*weeks).Format(time.DateOnly) }
	tag := fmt.Sprint(time.Now().UnixNano())
	coach := get(do(`mutation($n: String!) { createStaff(input: {name: $n}) { staff { id } } }`, map[string]any{"n": "Standing coach " + tag}), "createStaff", "staff", "id")
	activity := get(do(`mutation($n: String!) { createActivity(input: {name: $n}) { activity { id } } }`, map[string]any{"n": "Standing " + tag}), "createActivity", "activity", "id")
	room := get(do(`mutation($n: String!) { createRoom(input: {name: $n}) { room { id } } }`, map[string]any{"n": "Standing room " + tag}), "createRoom", "room", "id")
	var entries []map[string]any
	for h := range standingRounds {
		entries = append(entries, map[string]any{"week": 1,
			"classTime": map[string]any{"roomId": room, "weekday": weekdays[day.Weekday()], "start": fmt.Sprintf("%02d:00", h+2), "end": fmt.Sprintf("%02d:00", h+3), "capacity": standingPlaces},
			"class":     map[string]any{"activityId": activity, "staffIds": []any{coach}}})
	}
	series := get(do(`mutation($in: CreateSeriesInput!) { createSeries(input: $in) { series { id entries { classTime { id start } class { id } } } } }`,
		map[string]any{"in": map[string]any{"name": "Standing race " + tag, "anchorDate": start.Format(time.DateOnly), "entries": entries}}), "createSeries", "series").(map[string]any)
	sessions := map[string]string{} // by start
	for _, e := range series["entries"].([]any) {
		sessions[get(e, "classTime", "start").(string)] = fmt.Sprintf("s/%s/%s/%s", date(0), get(e, "classTime", "id"), get(e, "class", "id"))
	}
	var clients []string
	for i := range standingClients {
		c := get(do(`mutation($n: String!) { createClient(input: {name: $n}) { client { id } } }`, map[string]any{"n": fmt.Sprintf("Stander %s.%d", tag, i)}), "createClient", "client", "id").(string)
		do(`mutation($c: ID!, $s: ID!, $d: Date!) { createMembership(input: {clientId: $c, seriesId: $s, startDate: $d}) { membership { id } } }`,
			map[string]any{"c": c, "s": series["id"], "d": start.Format(time.DateOnly)})
		clients = append(clients, c)
	}

	for h := range standingRounds {
		session := sessions[fmt.Sprintf("%02d:00", h+2)]
		type answer struct {
			standing bool
			from     int // weeks after the race's date
			id, code string
			err      error
		}
		answers := make(chan answer, standingClients)
		var wg sync.WaitGroup
		go1 := make(chan struct{})
		for i, c := range clients {
			srv := servers[i%len(servers)]
			wg.Go(func() {
				<-go1
				if i%2 == 1 {
					id, code, err := send(srv, `mutation($s: SessionID!, $c: ID!) { bookSession(sessionId: $s, clientId: $c) { booking { id } } }`,
						map[string]any{"s": session, "c": c}, "bookSession", "booking")
					answers <- answer{false, 0, id, code, err}
					return
				}
				from := (i / 2) % 2
				id, code, err := send(srv, `mutation($in: CreateStandingBookingInput!) { createStandingBooking(input: $in) { standingBooking { id } } }`,
					map[string]any{"in": map[string]any{"clientId": c, "sessionId": session, "from": date(from)}}, "createStandingBooking", "standingBooking")
				answers <- answer{true, from, id, code, err}
			})
		}
		close(go1)
		wg.Wait()
		close(answers)
		won := map[string]bool{}
		refusals := map[string]int{}
		for a := range answers {
			switch {
			case a.err != nil:
				t.Errorf("round %d: %v", h, a.err)
			case a.code != "":
				refusals[a.code]++
			default:
				won[fmt.Sprint(a.standing, " ", a.id)] = true
			}
		}
		for code := range refusals {
			if code != "CAPACITY_FULL" && !strings.Contains(strings.Join(gaveUp, " "), code) {
				t.Errorf("round %d: refusals %v", h, refusals)
			}
		}

		// What is stored: the session's single places on its date and its
		// standing places, date by date.
		ctx := context.Background()
		parts := strings.Split(session, "/")
		var singles []int64
		if err := pg.DB.NewSelect().Table("session_bookings").Column("id").Where("class_time_id = ?", parts[2]).
			Where("orig_date = ?", date(0)).Where("status = 'booked'").Scan(ctx, &singles); err != nil {
			t.Fatal(err)
		}
		var standing []struct {
			ID       int64
			FromDate time.Time
		}
		if err := pg.DB.NewSelect().Table("standing_bookings").Column("id", "from_date").Where("class_time_id = ?", parts[2]).Scan(ctx, &standing); err != nil {
			t.Fatal(err)
		}
		stored := map[string]bool{}
		for _, id := range singles {
			stored[fmt.Sprint("false ", id)] = true
		}
		taken := []int{len(singles), 0, 0}
		for _, s := range standing {
			stored[fmt.Sprint("true ", s.ID)] = true
			for w := range taken {
				if !s.FromDate.After(day.AddDate(0, 0, 7*w)) {
					taken[w]++
				}
			}
		}
		for w, n := range taken {
			if n != standingPlaces {
				t.Errorf("round %d, %s: %d places given, the session has %d (%d single, %d standing)", h, date(w), n, standingPlaces, len(singles), len(standing))
			}
		}
		for k := range won {
			if !stored[k] {
				t.Errorf("round %d: %s was confirmed but is not stored", h, k)
			}
		}
		if len(won) != len(stored) {
			t.Errorf("round %d: %d places confirmed, %d stored", h, len(won), len(stored))
		}
		for _, srv := range servers {
			for w := range 3 {
				data, errs := post(t, srv, bootstrapToken, `query($id: SessionID!) { session(id: $id) { placesTaken placesLeft } }`,
					map[string]any{"id": strings.Replace(session, date(0), date(w), 1)})
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				if got := fmt.Sprint(data["session"]); got != fmt.Sprintf("map[placesLeft:0 placesTaken:%d]", taken[w]) {
					t.Errorf("round %d, %s on %s: %s, stored %d", h, srv, date(w), got, taken[w])
				}
			}
		}
		if h == 0 {
			t.Logf("round 0: %d single and %d standing places given, refusals %v", len(singles), len(standing), refusals)
		}
	}
}
