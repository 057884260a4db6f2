package icalendar_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/koredyne/schedule/caldav/icalendar"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
)

// TestImportMemory imports files of several shapes, measuring the live
// heap at every progress call and once the import is done, and compares
// the most with ImportMemory: never less, at most three times as much.
func TestImportMemory(t *testing.T) {
	existing, _ := demo.ByKind(engine.Clinic, engine.MustDate(2026, 12, 7))
	event := func(i int, body string) string {
		return fmt.Sprintf("BEGIN:VEVENT\r\nUID:e%d@memory.test\r\nDTSTAMP:20260101T000000Z\r\n%sEND:VEVENT\r\n", i, body)
	}
	for _, c := range []struct {
		name  string
		event func(i int) string
	}{
		{"weekly classes, each its own staff and room", func(i int) string {
			return event(i, fmt.Sprintf("SUMMARY:Class %d\r\nDTSTART;TZID=Europe/Berlin:20270104T%02d0000\r\nDTEND;TZID=Europe/Berlin:20270104T%02d3000\r\n"+
				"RRULE:FREQ=WEEKLY;BYDAY=MO\r\nEXDATE;TZID=Europe/Berlin:20270111T%02d0000\r\nLOCATION:Room %d\r\nORGANIZER;CN=Coach %d:mailto:c%d@x.test\r\n",
				i, i%14+6, i%14+6, i%14+6, i, i, i))
		}},
		{"the fewest lines a weekly class of its own takes", func(i int) string {
			return fmt.Sprintf("BEGIN:VEVENT\r\nSUMMARY:C%d\r\nDTSTART;TZID=Europe/Berlin:20270104T100000\r\nDURATION:PT1H\r\nRRULE:FREQ=WEEKLY\r\nLOCATION:R%d\r\nORGANIZER;CN=S%d:x\r\nEND:VEVENT\r\n", i, i, i)
		}},
		{"one-offs in a few rooms", func(i int) string {
			day := engine.MustDate(2027, 1, 4).AddDays(i % 700)
			return event(i, fmt.Sprintf("SUMMARY:Assessment\r\nDTSTART;TZID=Europe/Berlin:%sT%02d0000\r\nDURATION:PT1H\r\nLOCATION:Room %d\r\nORGANIZER;CN=Coach %d:mailto:c@x.test\r\n",
				strings.ReplaceAll(day.String(), "-", ""), i%14+6, i%5, i%7))
		}},
		{"long descriptions", func(i int) string {
			return event(i, "SUMMARY:Talk\r\nDTSTART:20270104T100000Z\r\nDTEND:20270104T110000Z\r\nDESCRIPTION:"+strings.Repeat("words and more words ", 40)+"\r\n")
		}},
		{"properties it does not read", func(i int) string {
			return event(i, fmt.Sprintf("SUMMARY:X\r\nDTSTART:20270104T100000Z\r\nDTEND:20270104T110000Z\r\nX-A;P=1;Q=2:v\r\nX-B;P=1:v\r\nX-C:%d\r\n", i))
		}},
		{"events it cannot read", func(i int) string { return event(i, "SUMMARY:Broken\r\nDTSTART:yesterday\r\n") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//memory test//EN\r\n")
			for i := 0; b.Len() < 1<<20; i++ {
				b.WriteString(c.event(i))
			}
			b.WriteString("END:VCALENDAR\r\n")
			file := b.String()
			var base, m runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&base)
			var most uint64
			measure := func() {
				runtime.GC()
				runtime.ReadMemStats(&m)
				most = max(most, m.HeapAlloc)
			}
			res, err := icalendar.Import(strings.NewReader(file), existing, icalendar.ImportOptions{
				Progress: func(done, total int) { measure() },
			})
			if err != nil {
				t.Fatal(err)
			}
			measure()
			runtime.KeepAlive(res)
			heap := int64(most) - int64(base.HeapAlloc)
			est := icalendar.ImportMemory(file)
			t.Logf("%d bytes, %d events, %d problems: heap %d B at most, estimate %d B (%.2f×)", len(file), res.Events, len(res.Problems), heap, est, float64(est)/float64(heap))
			if est < heap || est > 3*heap {
				t.Errorf("estimate %d B for an import that takes %d B", est, heap)
			}
		})
	}
}
