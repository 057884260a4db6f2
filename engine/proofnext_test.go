package engine_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
)

// TestProofNextEqualsFull applies thousands of random edits to small
// synthetic businesses, each valid edit a new revision, and requires the
// proof carried from the revision before (Proof.Next) to equal, clash for
// clash, the proof that resolves whole days from scratch.
func TestProofNextEqualsFull(t *testing.T) {
	businesses, edits := 10, 300
	if testing.Short() {
		businesses = 3
	}
	r := rand.New(rand.NewPCG(11, 12))
	applied, clashes := 0, 0
	for b := range businesses {
		today := engine.MustDate(2026, 11, 29).AddDays(r.IntN(60))
		s := enginetest.Business(enginetest.Options{ClassTimes: 15 + r.IntN(30), Seed: uint64(b), Today: today, Clashes: r.IntN(3)})
		// Two staff rows with one name, in other case, are one person.
		if len(s.Staff) > 3 {
			s.Staff[3].Name = strings.ToUpper(s.Staff[0].Name)
		}
		if engine.Validate(s) != nil {
			s.Staff[3].Name = "Someone else"
		}
		tt, err := engine.New(s)
		if err != nil {
			t.Fatal(err)
		}
		proof, err := tt.Prove(today, nil)
		if err != nil {
			t.Fatal(err)
		}
		var log []string
		for range edits {
			next := s.Clone()
			did := enginetest.RandomEdit(r, &next, today)
			day := today
			if r.IntN(50) == 0 {
				day = today.AddDays(1 + r.IntN(7))
			}
			if engine.Validate(next) != nil {
				continue
			}
			applied++
			log = append(log, did)
			nt, err := engine.New(next)
			if err != nil {
				t.Fatal(err)
			}
			got, err := proof.Next(nt, day, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := engine.ClashesByDays(nt, day)
			clashes += len(want.Clashes)
			if !reflect.DeepEqual(got.Report(), want) {
				t.Fatalf("business %d, edit %d (%s):\n got %s\nwant %s\nedits before: %s", b, len(log), did,
					messages(got.Report()), messages(want), strings.Join(log[max(0, len(log)-10):], "\n  "))
			}
			s, today, proof = next, day, got
		}
	}
	if applied < businesses*edits/2 {
		t.Fatalf("only %d edits were valid", applied)
	}
	t.Logf("%d edits, %d clashes compared", applied, clashes)
}

func messages(r engine.Report) string {
	var b strings.Builder
	for _, c := range r.Clashes {
		b.WriteString("\n  " + c.Message)
	}
	return b.String()
}
