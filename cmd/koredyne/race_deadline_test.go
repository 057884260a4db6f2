package main

import (
	"sync"
	"testing"

	"github.com/koredyne/schedule/models/modelstest"
)

// raceDeadlines are the request deadlines of the deadline race: each
// request draws its own, so that some pass while the request waits for a
// connection or its token, some while its write waits for the business's
// lock, some while it proves or commits, and some never.
const raceDeadlines = "20ms-1500ms"

// TestBookingRaceDeadlines races eight processes for the last places of a
// session, as TestBookingRace does, on a build (-tags deadlinetest) whose
// request deadlines are short and drawn at random: what a loaded machine
// does to the race at its full 58 s, at every point of a request. Every
// attempt must be answered with a booking the database holds, or refused
// with a code (CAPACITY_FULL, or TIMEOUT or UNAVAILABLE when its time ran
// out) and nothing held: never an answer that is neither (a request whose
// deadline passed before GraphQL ran it was once answered `null`, which
// the race took for a booking), and never a refusal whose booking was kept.
func TestBookingRaceDeadlines(t *testing.T) {
	pg, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	// The race is set up through a server with the real deadline.
	setup := prepareRace(t, startProcesses(t, buildMain(t), pg.DSN, 1)[0], 1)
	servers := startProcesses(t, buildMain(t, "deadlinetest"), pg.DSN, raceProcesses, "KOREDYNE_TEST_DEADLINE="+raceDeadlines)

	n := raceProcesses * raceAttempts
	type answer struct {
		id, code string
		err      error
	}
	answers := make([]answer, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			id, code, err := send(servers[i%len(servers)], `mutation($o: ID!, $c: ID!) { bookSession(oneOffId: $o, clientId: $c) { booking { id } } }`,
				map[string]any{"o": setup.oneOff, "c": setup.clients[i]}, "bookSession", "booking")
			answers[i] = answer{id, code, err}
		})
	}
	close(start)
	wg.Wait()

	booked, _ := stored(t, pg.DB, setup)
	holders := placeHolders(t, pg.DB, setup)
	outcomes := map[string]int{}
	for i, a := range answers {
		client := setup.clients[i]
		switch {
		case a.err != nil:
			outcomes["no answer"]++
			t.Errorf("client %s: %v", client, a.err)
		case a.code == "":
			outcomes["booked"]++
			if !booked[a.id] {
				t.Errorf("client %s: booking %s was confirmed but is not stored", client, a.id)
			}
		default:
			outcomes[a.code]++
			if a.code != "CAPACITY_FULL" && a.code != "TIMEOUT" && a.code != "UNAVAILABLE" {
				t.Errorf("client %s: refused with %s", client, a.code)
			}
			if holders[client] {
				t.Errorf("client %s was refused a place (%s) but holds one", client, a.code)
			}
		}
	}
	if len(booked) > racePlaces {
		t.Errorf("the session holds %d bookings, it has %d places", len(booked), racePlaces)
	}
	if want := len(booked) - setup.before; outcomes["booked"] != want {
		t.Errorf("%d bookings confirmed, %d made in the race", outcomes["booked"], want)
	}
	t.Logf("deadlines %s: %d of %d places taken; answers %v", raceDeadlines, len(booked), racePlaces, outcomes)
}
