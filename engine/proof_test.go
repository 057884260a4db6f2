package engine

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// TestProofEqualsWholeDays compares the proof room by room and person by
// person with the proof that resolves whole days, on thousands of small
// random businesses full of clashes: the reports are equal, clash for
// clash, message for message.
func TestProofEqualsWholeDays(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	valid, clashes := 0, 0
	for valid < 2000 {
		s, today, _, _ := randomState(r)
		if Validate(s) != nil {
			continue
		}
		valid++
		tt := compile(s)
		want, err := tt.clashesByDays(today, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := tt.Prove(today, nil)
		if err != nil {
			t.Fatal(err)
		}
		clashes += len(want.Clashes)
		if got := p.Report(); !reflect.DeepEqual(got, want) {
			t.Fatalf("state %d (today %s):\n got %s\nwant %s\nstate %+v", valid, today, reportText(got), reportText(want), s)
		}
	}
	t.Logf("%d states, %d clashes", valid, clashes)
}

func reportText(r Report) string {
	out := ""
	for _, c := range r.Clashes {
		out += "\n  " + c.Message
		for _, k := range c.keys {
			out += "\n    " + k
		}
	}
	return out
}

// TestProofOnGoroutines sends small random businesses through the proof
// on goroutines (every resource counts as many, on up to four of them)
// and compares it with the proof that resolves whole days, and checks that
// a stop still stops it.
func TestProofOnGoroutines(t *testing.T) {
	defer func(n, procs int) { proveAlone = n; runtime.GOMAXPROCS(procs) }(proveAlone, runtime.GOMAXPROCS(4))
	proveAlone = 1
	r := rand.New(rand.NewPCG(9, 10))
	valid, clashes := 0, 0
	for valid < 500 {
		s, today, _, _ := randomState(r)
		if Validate(s) != nil {
			continue
		}
		valid++
		tt := compile(s)
		want, err := tt.clashesByDays(today, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := tt.Prove(today, nil)
		if err != nil {
			t.Fatal(err)
		}
		clashes += len(want.Clashes)
		if got := p.Report(); !reflect.DeepEqual(got, want) {
			t.Fatalf("state %d (today %s):\n got %s\nwant %s", valid, today, reportText(got), reportText(want))
		}
	}
	t.Logf("%d states, %d clashes", valid, clashes)

	s, today := crowdedPool(40)
	tt, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Millisecond)
	if _, err := tt.ClashesOrStop(today, func() bool { return time.Now().After(deadline) }); !errors.Is(err, ErrStopped) {
		t.Fatalf("got %v, want ErrStopped", err)
	}
}
