package graph

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

// TestDecodedSizeEstimate decodes request bodies of many shapes as the
// POST transport does and compares the heap they take with decodedSize:
// never less, at most three times as much (a body of one string, at most
// a tenth more; escaped characters, which shrink as they are read, four).
func TestDecodedSizeEstimate(t *testing.T) {
	repeat := func(prefix, item, suffix string, size int) []byte {
		var b bytes.Buffer
		b.WriteString(prefix)
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strings.ReplaceAll(item, "#", fmt.Sprint(i)))
		}
		b.WriteString(suffix)
		return b.Bytes()
	}
	const size = 256 << 10
	vars := func(items string) []byte {
		return repeat(`{"query":"{ business { name } }","variables":{"v":[`, items, `]}}`, size)
	}
	wide := func(value string) []byte {
		return repeat(`{"query":"{ business { name } }","variables":{`, `"k#":`+value, `}}`, size)
	}
	for _, c := range []struct {
		name  string
		body  []byte
		tight bool    // the estimate is within a tenth
		over  float64 // the most the estimate may be over: 3 unless set
	}{
		{"one long string", []byte(`{"query":"mutation($s: String!) { importCalendar(ics: $s) { revision } }","variables":{"s":"` + strings.Repeat("x", size) + `"}}`), true, 0},
		{"a long query", []byte(`{"query":"` + strings.Repeat(" ", size) + `{ business { name } }"}`), true, 0},
		{"escaped characters", []byte(`{"query":"{ business { name } }","variables":{"s":"` + strings.Repeat(`\u00e9`, size/6) + `"}}`), false, 4},
		{"small objects", vars(`{"a":1}`), false, 0},
		{"objects of nine members", vars(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}`), false, 0},
		{"objects in objects", vars(`{"a":{"b":{"c":{}}}}`), false, 0},
		{"numbers", vars(`1`), false, 0},
		{"long numbers", vars(`12345678901234567890.5e10`), false, 0},
		{"short strings", vars(`"a"`), false, 0},
		{"strings of 40 bytes", vars(`"` + strings.Repeat("y", 40) + `"`), false, 0},
		{"empty lists", vars(`[]`), false, 0},
		{"booleans and nulls", vars(`true,false,null`), false, 0},
		{"one wide object of numbers", wide(`1`), false, 0},
		{"one wide object of objects", wide(`{}`), false, 0},
		{"extensions", repeat(`{"query":"{ business { name } }","extensions":{"e":[`, `{"x":"#"}`, `]}}`, size), false, 0},
		{"members gqlgen skips", repeat(`{"query":"{ business { name } }","other":[`, `{"x":1}`, `]}`, size), false, 0},
		{"variables named with an escape", repeat(`{"query":"{ business { name } }","\u0076ariables":{"v":[`, `{"a":1}`, `]}}`, size), false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !json.Valid(c.body) {
				t.Fatalf("not JSON: %.200s", c.body)
			}
			// The heap is the whole process's: goroutines that other tests
			// left behind may allocate while it is measured (seen on a busy
			// machine), so the least of a few rounds is the bodies' own.
			const n, rounds = 8, 5
			heap := int64(math.MaxInt64)
			for range rounds {
				out := make([]graphql.RawParams, n)
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				for i := range out {
					dec := json.NewDecoder(bytes.NewReader(c.body))
					dec.UseNumber()
					if err := dec.Decode(&out[i]); err != nil {
						t.Fatal(err)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				heap = min(heap, (int64(after.HeapAlloc)-int64(before.HeapAlloc))/n)
				runtime.KeepAlive(out)
			}
			est := decodedSize(c.body)
			t.Logf("%d bytes: heap %d B, estimate %d B (%.2f×)", len(c.body), heap, est, float64(est)/float64(max(heap, 1)))
			switch {
			case est < heap:
				t.Errorf("estimate %d B for a body that takes %d B", est, heap)
			case c.tight && float64(est) > 1.1*float64(heap):
				t.Errorf("estimate %d B for a body that takes %d B: more than a tenth over", est, heap)
			case heap > size/4 && float64(est) > cmp.Or(c.over, 3)*float64(heap):
				t.Errorf("estimate %d B for a body that takes %d B: more than %v times", est, heap, cmp.Or(c.over, 3))
			}
		})
	}
}
