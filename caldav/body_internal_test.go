package caldav

import (
	"encoding/xml"
	"runtime"
	"strings"
	"testing"
)

// TestDecodedBodyHeld decodes request bodies of many shapes as PROPFIND
// and REPORT do and compares the heap they take with what the gateway
// holds for a body in the server's request budget (bodyHeld a byte, the
// body itself included): never less.
func TestDecodedBodyHeld(t *testing.T) {
	const size = 256 << 10
	repeat := func(prefix, item, suffix string) string {
		return prefix + strings.Repeat(item, (size-len(prefix)-len(suffix))/len(item)) + suffix
	}
	const d, c = `xmlns:D="DAV:"`, `xmlns:C="urn:ietf:params:xml:ns:caldav"`
	for _, tc := range []struct {
		name string
		body string
		into func() any
	}{
		{"a multiget of many hrefs", repeat(`<C:calendar-multiget `+d+` `+c+`><D:prop><D:getetag/></D:prop>`,
			`<D:href>/caldav/demo/calendars/all/x.ics</D:href>`, `</C:calendar-multiget>`), func() any { return &multiget{} }},
		{"a multiget of short hrefs", repeat(`<C:calendar-multiget `+d+` `+c+`>`, `<D:href/>`, `</C:calendar-multiget>`), func() any { return &multiget{} }},
		{"a propfind of many props", repeat(`<D:propfind `+d+`><D:prop>`, `<D:a/>`, `</D:prop></D:propfind>`), func() any { return &propfindReq{} }},
		{"props with long namespaces", repeat(`<D:propfind `+d+`><D:prop>`, `<x:a xmlns:x="`+strings.Repeat("n", 60)+`"/>`, `</D:prop></D:propfind>`), func() any { return &propfindReq{} }},
		{"a query of many prop filters", repeat(`<C:calendar-query `+d+` `+c+`><C:filter><C:comp-filter name="VCALENDAR">`,
			`<C:prop-filter name="X"><C:param-filter name="P"><C:text-match>t</C:text-match></C:param-filter><C:time-range start="a" end="b"/></C:prop-filter>`,
			`</C:comp-filter></C:filter></C:calendar-query>`), func() any { return &calendarQuery{} }},
		{"a query of empty comp filters", repeat(`<C:calendar-query `+d+` `+c+`><C:filter><C:comp-filter name="VCALENDAR">`,
			`<C:comp-filter/>`, `</C:comp-filter></C:filter></C:calendar-query>`), func() any { return &calendarQuery{} }},
		{"a sync of many props", repeat(`<D:sync-collection `+d+`><D:sync-token/><D:prop>`, `<D:b/>`, `</D:prop></D:sync-collection>`), func() any { return &syncCollection{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			const n = 8
			out := make([]any, n)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for i := range out {
				out[i] = tc.into()
				if err := xml.Unmarshal(body, out[i]); err != nil {
					t.Fatal(err)
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			heap := (int64(after.HeapAlloc)-int64(before.HeapAlloc))/n + int64(len(body)) // the body stays beside what it became
			held := bodyHeld * int64(len(body))
			t.Logf("%d bytes: heap %d B with the body, held %d B (%.2f×)", len(body), heap, held, float64(held)/float64(heap))
			if held < heap {
				t.Errorf("%d B held for a body that takes %d B", held, heap)
			}
			runtime.KeepAlive(out)
		})
	}
}
