package engine_test

import (
	"fmt"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
)

// scaleSizes are the businesses the scaling benchmarks grow through, in
// class times.
var scaleSizes = []int{100, 1000, 10000}

func scaled(b *testing.B, n int) engine.State {
	return enginetest.Business(enginetest.Options{ClassTimes: n, Seed: 1, Today: benchWeek})
}

// BenchmarkScaleClashProof runs the full clash proof of synthetic
// businesses of 100, 1,000 and 10,000 class times.
func BenchmarkScaleClashProof(b *testing.B) {
	for _, n := range scaleSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := scaled(b, n)
			for b.Loop() {
				// A timetable keeps what its proof indexes: compile a
				// fresh one, untimed, so each proof starts from nothing.
				b.StopTimer()
				tt, err := engine.New(s)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if r := tt.Clashes(benchWeek); len(r.Clashes) != 0 {
					b.Fatal(r.Clashes[0].Message)
				}
			}
		})
	}
}

// BenchmarkScaleGuardedWrite is the engine's part of one guarded write to
// a synthetic business: copy the schedule, add a class time and its entry,
// check the result against the revision before and compile it from that
// revision's timetable (Timetable.Check, Step.Timetable), prove its clashes
// from the proof the revision before kept (Proof.Step) and compare the two.
func BenchmarkScaleGuardedWrite(b *testing.B) {
	for _, n := range scaleSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			before, err := engine.New(scaled(b, n))
			if err != nil {
				b.Fatal(err)
			}
			was, err := before.Prove(benchWeek, nil)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				s := before.State().Clone()
				if _, ok := enginetest.AddClassTime(&s, 0); !ok {
					b.Fatal("no free hour")
				}
				step, err := before.Check(s)
				if err != nil {
					b.Fatal(err)
				}
				is, err := was.Step(step, benchWeek, nil)
				if err != nil {
					b.Fatal(err)
				}
				if added := engine.NewClashes(was.Report(), is.Report()); len(added) != 0 {
					b.Fatal(added[0].Message)
				}
			}
		})
	}
}

// BenchmarkScaleProofNext is the proof alone in that write: the timetable
// after it is compiled, untimed, and the proof carried from the one before.
func BenchmarkScaleProofNext(b *testing.B) {
	for _, n := range scaleSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			before, err := engine.New(scaled(b, n))
			if err != nil {
				b.Fatal(err)
			}
			was, err := before.Prove(benchWeek, nil)
			if err != nil {
				b.Fatal(err)
			}
			s := before.State().Clone()
			if _, ok := enginetest.AddClassTime(&s, 0); !ok {
				b.Fatal("no free hour")
			}
			for b.Loop() {
				b.StopTimer()
				after, err := engine.New(s)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := was.Next(after, benchWeek, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
