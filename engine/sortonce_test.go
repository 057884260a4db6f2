package engine

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortOnceAgainstSort requires sortOnce to leave every list as a
// stable sort does: lists in order, in order but for the last row (which
// it moves into place), and out of order anywhere, with repeated keys.
func TestSortOnceAgainstSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	type row struct{ key, at int }
	order := func(a, b *row) int { return cmp.Compare(a.key, b.key) }
	for range 5000 {
		n := r.IntN(12)
		l := make([]row, n)
		for i := range l {
			l[i] = row{r.IntN(8), i}
		}
		switch r.IntN(3) {
		case 0: // in order
			slices.SortStableFunc(l, func(a, b row) int { return order(&a, &b) })
		case 1: // in order but the last
			if n > 1 {
				slices.SortStableFunc(l[:n-1], func(a, b row) int { return order(&a, &b) })
			}
		}
		want := slices.Clone(l)
		slices.SortStableFunc(want, func(a, b row) int { return order(&a, &b) })
		got := slices.Clone(l)
		sortOnce(got, order)
		// Rows of one key may come in any order from a full sort; the
		// keys must be sorted and the rows the same.
		if !slices.IsSortedFunc(got, func(a, b row) int { return order(&a, &b) }) {
			t.Fatalf("%v: not sorted: %v", l, got)
		}
		g, w := slices.Clone(got), slices.Clone(want)
		byAt := func(a, b row) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.at, b.at)) }
		slices.SortFunc(g, byAt)
		slices.SortFunc(w, byAt)
		if !slices.Equal(g, w) {
			t.Fatalf("%v: got %v, want the rows of %v", l, got, want)
		}
	}
}
