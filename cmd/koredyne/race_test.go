package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// The booking race: separate server processes on one PostgreSQL database,
// each sent attempts at once for the last places of one session and for
// overlapping lanes of one room.
const (
	raceProcesses = 8
	raceAttempts  = 25 // of each kind, per process
	racePlaces    = 5  // in the session; 2 are booked before the race
	raceLanes     = 4
	raceLaneUnits = 2 // per lane booking
)

// raceSetup is what the race is run on.
type raceSetup struct {
	date, next       string // the race's day and the day after
	oneOff, studio   string // the session and its room
	lanes            string
	clients          []string // one per place attempt
	before           int      // places booked before the race
	beforeBookingIDs []string
}

// raceOutcome is what the servers answered.
type raceOutcome struct {
	placeWins, laneWins []string // ids of the bookings said to succeed
	refusals            map[string]int
	refusedClients      []string // the clients of the place attempts refused
}

// gaveUp are the refusals of a server that ran out of time (its request
// deadline, TIMEOUT) or of database connections (UNAVAILABLE) before the
// attempt was decided: on a machine loaded far past its cores the race can
// outlast the deadline. Each says why and must have written nothing.
var gaveUp = []string{"TIMEOUT", "UNAVAILABLE"}

// gaveUpOn counts the attempts of a kind that a server gave up on.
func (o raceOutcome) gaveUpOn(kind string) int {
	n := 0
	for _, code := range gaveUp {
		n += o.refusals[code+" "+kind]
	}
	return n
}

// TestBookingRace races real processes for the last places of a session
// and for lanes: no session or room is ever overbooked, every booking a
// server said it made is stored, and every refusal says why.
func TestBookingRace(t *testing.T) {
	pg, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	bookingRace(t, startProcesses(t, buildMain(t), pg.DSN, raceProcesses), pg.DB)
}

// bookingRace is TestBookingRace on servers, which share db.
func bookingRace(t *testing.T, servers []string, db *models.DB) {
	setup := prepareRace(t, servers[0], 1)
	out := race(t, servers, setup)
	booked, lanes := stored(t, db, setup)

	if len(out.placeWins) != racePlaces-setup.before {
		t.Errorf("%d place bookings succeeded, want the %d places left", len(out.placeWins), racePlaces-setup.before)
	}
	if want := raceProcesses*raceAttempts - len(out.placeWins) - out.gaveUpOn("place"); out.refusals["CAPACITY_FULL place"] != want {
		t.Errorf("refusals %v, want %d CAPACITY_FULL for places", out.refusals, want)
	}
	if len(booked) != racePlaces {
		t.Errorf("the session holds %d bookings, want its %d places", len(booked), racePlaces)
	}
	for _, id := range append(out.placeWins, setup.beforeBookingIDs...) {
		if !booked[id] {
			t.Errorf("booking %s was confirmed but is not stored", id)
		}
	}
	holders := placeHolders(t, db, setup)
	for _, c := range out.refusedClients {
		if holders[c] {
			t.Errorf("client %s was refused a place but holds one", c)
		}
	}
	if peak := peakUnits(lanes); peak > raceLanes {
		t.Errorf("%d lanes in use at once, the room has %d", peak, raceLanes)
	}
	if len(lanes) != len(out.laneWins) {
		t.Errorf("%d lane bookings stored, %d confirmed", len(lanes), len(out.laneWins))
	}
	for _, id := range out.laneWins {
		if _, ok := lanes[id]; !ok {
			t.Errorf("lane booking %s was confirmed but is not stored", id)
		}
	}
	if len(out.laneWins) == 0 || out.refusals["CAPACITY_FULL lane"]+out.gaveUpOn("lane")+len(out.laneWins) != raceProcesses*raceAttempts {
		t.Errorf("%d lane bookings, refusals %v", len(out.laneWins), out.refusals)
	}
	// Every process agrees with the database afterwards.
	for _, u := range servers {
		data, errs := post(t, u, bootstrapToken, `query($from: Date!, $to: Date!, $room: ID!) { sessions(from: $from, to: $to, roomId: $room) { booked placesLeft } }`,
			map[string]any{"from": setup.date, "to": setup.next, "room": setup.studio})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		if s := data["sessions"].([]any); len(s) != 1 || fmt.Sprint(s[0]) != fmt.Sprintf("map[booked:%d placesLeft:0]", racePlaces) {
			t.Errorf("%s: the race's sessions show %v", u, s)
		}
	}
	t.Logf("places: %d won, lanes: %d won, refusals %v", len(out.placeWins), len(out.laneWins), out.refusals)
	if n := out.gaveUpOn("place") + out.gaveUpOn("lane"); n > 0 {
		t.Logf("%d attempts ran out of time or connections before they were decided (the machine is loaded): none wrote anything", n)
	}
}

// TestBookingRaceUnlocked runs the same race on a build whose writes do not
// take the business's lock: it must overbook, or the race above proves
// nothing.
func TestBookingRaceUnlocked(t *testing.T) {
	pg, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	servers := startProcesses(t, buildMain(t, "unlockedtest"), pg.DSN, raceProcesses)
	// A race is a race: on a loaded machine one round may happen to
	// serialise, so the build gets a few rounds to show it overbooks.
	for round := 1; round <= 5; round++ {
		setup := prepareRace(t, servers[0], round)
		out := race(t, servers, setup)
		booked, lanes := stored(t, pg.DB, setup)
		places, peak := len(booked), peakUnits(lanes)
		t.Logf("unlocked, round %d: %d of %d places taken, %d of %d lanes in use at once (%d place and %d lane bookings confirmed)",
			round, places, racePlaces, peak, raceLanes, len(out.placeWins), len(out.laneWins))
		if places > racePlaces || peak > raceLanes {
			return
		}
	}
	t.Fatal("the unlocked build never overbooked: the race cannot tell a lock from none")
}

// prepareRace adds a session of 5 places with 2 booked, a room of 4 lanes,
// and a client for every place attempt, through one server; round names
// them apart from earlier rounds'.
func prepareRace(t *testing.T, u string, round int) raceSetup {
	t.Helper()
	do := func(q string, vars map[string]any) map[string]any {
		t.Helper()
		data, errs := post(t, u, bootstrapToken, q, vars)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", q, errs)
		}
		return data
	}
	id := func(data map[string]any, keys ...string) string {
		var v any = data
		for _, k := range keys {
			v = v.(map[string]any)[k]
		}
		return v.(string)
	}
	day := time.Now().AddDate(0, 0, 10)
	s := raceSetup{date: day.Format(time.DateOnly), next: day.AddDate(0, 0, 1).Format(time.DateOnly)}
	name := func(what string) map[string]any {
		return map[string]any{"name": fmt.Sprintf("Race %s %d", what, round)}
	}
	coach := id(do(`mutation($name: String!) { createStaff(input: {name: $name}) { staff { id } } }`, name("Coach")), "createStaff", "staff", "id")
	activity := id(do(`mutation($name: String!) { createActivity(input: {name: $name}) { activity { id } } }`, name("Day")), "createActivity", "activity", "id")
	s.studio = id(do(`mutation($name: String!) { createRoom(input: {name: $name}) { room { id } } }`, name("Studio")), "createRoom", "room", "id")
	s.lanes = id(do(`mutation($name: String!, $n: Int!) { createRoom(input: {name: $name, capacity: $n}) { room { id } } }`,
		map[string]any{"name": fmt.Sprintf("Race Lanes %d", round), "n": raceLanes}), "createRoom", "room", "id")
	s.oneOff = id(do(`mutation($room: ID!, $staff: ID!, $activity: ID!, $date: Date!, $places: Int!) {
		createOneOff(input: {class: {activityId: $activity, staffIds: [$staff]}, roomId: $room, date: $date, start: "10:00", end: "11:00", capacity: $places}) { oneOff { id } } }`,
		map[string]any{"room": s.studio, "staff": coach, "activity": activity, "date": s.date, "places": racePlaces}), "createOneOff", "oneOff", "id")
	for i := range 2 + raceProcesses*raceAttempts {
		c := id(do(`mutation($name: String!) { createClient(input: {name: $name}) { client { id } } }`, map[string]any{"name": fmt.Sprintf("Racer %d.%d", round, i)}), "createClient", "client", "id")
		if i < 2 {
			b := id(do(`mutation($o: ID!, $c: ID!) { bookSession(oneOffId: $o, clientId: $c) { booking { id } } }`, map[string]any{"o": s.oneOff, "c": c}), "bookSession", "booking", "id")
			s.beforeBookingIDs = append(s.beforeBookingIDs, b)
			s.before++
			continue
		}
		s.clients = append(s.clients, c)
	}
	return s
}

// race sends every attempt at once: attempt i of each kind goes to process
// i mod 8. Lane bookings take 2 of the 4 lanes for an hour from 10:00,
// 10:15, 10:30 or 10:45, so all of them overlap at 10:45.
func race(t *testing.T, servers []string, s raceSetup) raceOutcome {
	t.Helper()
	n := raceProcesses * raceAttempts
	type answer struct {
		kind, id, code string
		client         string // of a place attempt
		err            error
	}
	answers := make(chan answer, 2*n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		u := servers[i%len(servers)]
		wg.Go(func() {
			<-start
			data, code, err := send(u, `mutation($o: ID!, $c: ID!) { bookSession(oneOffId: $o, clientId: $c) { booking { id } } }`,
				map[string]any{"o": s.oneOff, "c": s.clients[i]}, "bookSession", "booking")
			answers <- answer{"place", data, code, s.clients[i], err}
		})
		wg.Go(func() {
			<-start
			from := time.Date(2000, 1, 1, 10, 15*(i%4), 0, 0, time.UTC)
			data, code, err := send(u, `mutation($r: ID!, $d: Date!, $s: LocalTime!, $e: LocalTime!, $u: Int!) {
				bookRoom(input: {roomId: $r, date: $d, start: $s, end: $e, units: $u}) { roomBooking { id } } }`,
				map[string]any{"r": s.lanes, "d": s.date, "s": from.Format("15:04"), "e": from.Add(time.Hour).Format("15:04"), "u": raceLaneUnits},
				"bookRoom", "roomBooking")
			answers <- answer{"lane", data, code, "", err}
		})
	}
	close(start)
	wg.Wait()
	close(answers)
	out := raceOutcome{refusals: map[string]int{}}
	for a := range answers {
		switch {
		case a.err != nil:
			t.Errorf("%s booking: %v", a.kind, a.err)
		case a.code != "":
			out.refusals[a.code+" "+a.kind]++
			if a.kind == "place" {
				out.refusedClients = append(out.refusedClients, a.client)
			}
		case a.kind == "place":
			out.placeWins = append(out.placeWins, a.id)
		default:
			out.laneWins = append(out.laneWins, a.id)
		}
	}
	return out
}

// send posts a mutation from any goroutine and returns the id under
// data.field.object, or the first error's code.
func send(u, query string, vars map[string]any, field, object string) (id, code string, err error) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequest("POST", u+"/graphql", bytes.NewReader(body))
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bootstrapToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", "", fmt.Errorf("reading a %d response: %w", resp.StatusCode, err)
	}
	var out struct {
		Data   map[string]map[string]map[string]string
		Errors []struct {
			Message    string
			Extensions map[string]any
		}
	}
	if err := json.Unmarshal(answer, &out); err != nil {
		return "", "", fmt.Errorf("decoding a %d response: %w", resp.StatusCode, err)
	}
	if len(out.Errors) > 0 {
		code, _ := out.Errors[0].Extensions["code"].(string)
		if code == "" || code == "INTERNAL_SERVER_ERROR" {
			return "", "", fmt.Errorf("%s", out.Errors[0].Message)
		}
		return "", code, nil
	}
	// Only a booking's id confirms it: an answer with neither (the
	// server once answered `null` to a request whose deadline passed
	// before it ran) is no booking, and not a refusal either.
	if id = out.Data[field][object]["id"]; id == "" {
		return "", "", fmt.Errorf("a %d response with neither an id nor an error: %.200s", resp.StatusCode, answer)
	}
	return id, "", nil
}

// lane is one stored room booking, in minutes of the day.
type lane struct{ start, end, units int }

// stored reads the race's rows straight from the database: the ids of the
// session's places and the room's live bookings.
func stored(t *testing.T, db *models.DB, s raceSetup) (booked map[string]bool, lanes map[string]lane) {
	t.Helper()
	ctx := context.Background()
	number := func(id string) int64 {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	var ids []int64
	if err := db.NewSelect().Table("session_bookings").Column("id").Where("one_off_id = ?", number(s.oneOff)).Where("status = 'booked'").Scan(ctx, &ids); err != nil {
		t.Fatal(err)
	}
	booked = map[string]bool{}
	for _, id := range ids {
		booked[strconv.FormatInt(id, 10)] = true
	}
	var rows []struct {
		ID                     int64
		StartMinute, EndMinute int
		Units                  int
	}
	if err := db.NewSelect().Table("room_bookings").Column("id", "start_minute", "end_minute", "units").
		Where("room_id = ?", number(s.lanes)).Where("NOT cancelled").Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	lanes = map[string]lane{}
	for _, r := range rows {
		lanes[strconv.FormatInt(r.ID, 10)] = lane{r.StartMinute, r.EndMinute, r.Units}
	}
	return booked, lanes
}

// placeHolders reads the clients holding a place in the race's session.
func placeHolders(t *testing.T, db *models.DB, s raceSetup) map[string]bool {
	t.Helper()
	oneOff, err := strconv.ParseInt(s.oneOff, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	var clients []int64
	if err := db.NewSelect().Table("session_bookings").Column("client_id").Where("one_off_id = ?", oneOff).
		Where("status = 'booked'").Scan(context.Background(), &clients); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, c := range clients {
		out[strconv.FormatInt(c, 10)] = true
	}
	return out
}

// peakUnits is the most units booked at one minute, minute by minute.
func peakUnits(lanes map[string]lane) int {
	peak := 0
	for m := range 24 * 60 {
		n := 0
		for _, l := range lanes {
			if l.start <= m && m < l.end {
				n += l.units
			}
		}
		peak = max(peak, n)
	}
	return peak
}
