package graph

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strings"
	"testing"
)

// TestPaginate walks a list page by page, with a row deleted between pages,
// and checks that every row still there is seen once, in order.
func TestPaginate(t *testing.T) {
	c, err := newCursors("a business's secret", "numbers")
	if err != nil {
		t.Fatal(err)
	}
	rows := []int64{1, 2, 3, 5, 8, 13, 21}
	key := func(id *int64) string { return idKey(*id) }
	two := 2
	var seen []int64
	var after *string
	for pages := 0; ; pages++ {
		page, cursors, info, err := paginate(c, rows, &two, after, key)
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
		if _, _, _, err := paginate(c, rows, nil, &bad, key); err == nil {
			t.Errorf("cursor %q: no error", bad)
		}
	}
	for _, n := range []int{-1, maxPage + 1} {
		if _, _, _, err := paginate(c, rows, &n, nil, key); err == nil {
			t.Errorf("first %d: no error", n)
		}
	}
	zero := 0
	if page, _, info, _ := paginate(c, rows, &zero, nil, key); len(page) != 0 || !info.HasNextPage || info.EndCursor != nil {
		t.Errorf("first 0: %v %+v", page, info)
	}
}

// TestCursorsAreSealed: a cursor opens to its key in its own list of its
// own business only; it does not hold the key in the clear (nor base64 of
// it), one key always seals to one cursor, and a cursor changed in any
// byte, cut short or made up does not open.
func TestCursorsAreSealed(t *testing.T) {
	const secret, key = "a business's secret", "maria gonzález\x0000000000000000000042"
	c, err := newCursors(secret, "clients")
	if err != nil {
		t.Fatal(err)
	}
	sealed := c.seal(key)
	if got, ok := c.open(sealed); !ok || got != key {
		t.Fatalf("open(seal(%q)) = %q, %v", key, got, ok)
	}
	if again := c.seal(key); again != sealed {
		t.Errorf("one key, two cursors: %q, %q", sealed, again)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(sealed)
	for _, clear := range [][]byte{[]byte("gonz"), []byte("maria"), []byte("0042")} {
		if bytes.Contains(raw, clear) || strings.Contains(sealed, base64.RawURLEncoding.EncodeToString(clear)) {
			t.Errorf("the cursor %q shows %q", sealed, clear)
		}
	}
	other, _ := newCursors(secret, "subscriptions")
	business, _ := newCursors("another business's secret", "clients")
	for name, o := range map[string]cursors{"another list": other, "another business": business} {
		if got, ok := o.open(sealed); ok {
			t.Errorf("%s opens the cursor: %q", name, got)
		}
	}
	made := []string{"", "Zm9v", base64.RawURLEncoding.EncodeToString([]byte(key)), sealed[:len(sealed)-1], sealed + "A", "!!"}
	for i := range raw {
		changed := bytes.Clone(raw)
		changed[i] ^= 1
		made = append(made, base64.RawURLEncoding.EncodeToString(changed))
	}
	for _, m := range made {
		if got, ok := c.open(m); ok {
			t.Errorf("the made-up cursor %q opens to %q", m, got)
		}
	}
}

// BenchmarkSealPage measures the cursors of a full page of clients (500).
func BenchmarkSealPage(b *testing.B) {
	rows := make([]int64, maxPage)
	for i := range rows {
		rows[i] = int64(i + 1)
	}
	key := func(id *int64) string { return "a client's name, in lower case\x00" + idKey(*id) }
	n := maxPage
	for b.Loop() {
		c, err := newCursors("a business's secret", "clients")
		if err != nil {
			b.Fatal(err)
		}
		if _, _, _, err := paginate(c, rows, &n, nil, key); err != nil {
			b.Fatal(err)
		}
	}
}
