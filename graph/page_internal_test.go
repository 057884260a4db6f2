package graph

import (
	"slices"
	"testing"
)

// TestPaginate walks a list page by page, with a row deleted between pages,
// and checks that every row still there is seen once, in order.
func TestPaginate(t *testing.T) {
	rows := []int64{1, 2, 3, 5, 8, 13, 21}
	key := func(id *int64) string { return idKey(*id) }
	two := 2
	var seen []int64
	var after *string
	for pages := 0; ; pages++ {
		page, cursors, info, err := paginate(rows, &two, after, key)
		if err != nil {
			t.Fatal(err)
		}
		if info.HasPreviousPage != (pages > 0) || len(cursors) != len(page) {
			t.Fatalf("page %d: %+v, %d cursors for %d rows", pages, info, len(cursors), len(page))
		}
		seen = append(seen, page...)
		if pages == 1 { // the row the next page would have started with goes
			rows = slices.DeleteFunc(rows, func(id int64) bool { return id == 8 })
		}
		if !info.HasNextPage {
			break
		}
		after = info.EndCursor
	}
	if want := []int64{1, 2, 3, 5, 13, 21}; !slices.Equal(seen, want) {
		t.Fatalf("seen %v, want %v", seen, want)
	}
	for _, bad := range []string{"", "!!", "%%%"} {
		if _, _, _, err := paginate(rows, nil, &bad, key); err == nil {
			t.Errorf("cursor %q: no error", bad)
		}
	}
	for _, n := range []int{-1, maxPage + 1} {
		if _, _, _, err := paginate(rows, &n, nil, key); err == nil {
			t.Errorf("first %d: no error", n)
		}
	}
	zero := 0
	if page, _, info, _ := paginate(rows, &zero, nil, key); len(page) != 0 || !info.HasNextPage || info.EndCursor != nil {
		t.Errorf("first 0: %v %+v", page, info)
	}
}
