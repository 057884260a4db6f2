package caldav_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzhttp"
	kgzip "github.com/klauspost/compress/gzip"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/modelstest"
)

// BenchmarkRequestKinds times each kind of request a calendar app sends,
// on the gym with the default window, once the revision is rendered, and
// reports what the rate limit charges for it (a tenth of a unit, and the
// work the gateway reports): what its prices are set from. Each answer is
// gzipped, as every calendar app asks, by the gateway for what it keeps and
// by gzhttp as the server sets it up for the rest. CPU time is the
// process's, fairer than the wall clock on a loaded machine.
func BenchmarkRequestKinds(b *testing.B) {
	g := newGateway(b, modelstest.SQLite(b), "harbor", engine.Gym, 8, 52)
	obs := &units{}
	g.h.Observer = obs
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(1024), gzhttp.CompressionLevel(kgzip.BestSpeed), gzhttp.EnableZstd(false))
	if err != nil {
		b.Fatal(err)
	}
	h := wrap(g.h)
	base := "/caldav/harbor/calendars/all/"
	serve := func(method, path, body string, header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.SetBasicAuth("harbor", g.token)
		req.Header.Set("Accept-Encoding", "gzip")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	listing := serve("REPORT", base, `<?xml version="1.0"?><D:sync-collection xmlns:D="DAV:"><D:sync-token/><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>`)
	hrefs := regexp.MustCompile(`<D:href>([^<]+\.ics)</D:href>`).FindAllStringSubmatch(unzipped(b, listing), -1)
	multiget := func(n int) string {
		var s strings.Builder
		s.WriteString(`<?xml version="1.0"?><C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getcontenttype/><D:getetag/><C:schedule-tag/><C:calendar-data/></D:prop>`)
		for _, h := range hrefs[:n] {
			s.WriteString("<D:href>" + h[1] + "</D:href>")
		}
		s.WriteString("</C:calendar-multiget>")
		return s.String()
	}
	query := func(start, end string, data bool) string {
		p := "<D:getetag/>"
		if data {
			p += "<C:calendar-data/>"
		}
		return `<?xml version="1.0"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop>` + p +
			`</D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:time-range start="` + start + `" end="` + end + `"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`
	}
	event := strings.TrimPrefix(hrefs[len(hrefs)/2][1], base)
	for _, c := range []struct {
		name, method, path, body string
		header                   []string
	}{
		{"propfind-calendar", "PROPFIND", base, `<D:propfind xmlns:D="DAV:" xmlns:CS="http://calendarserver.org/ns/"><D:prop><D:sync-token/><CS:getctag/></D:prop></D:propfind>`, []string{"Depth", "0"}},
		{"get-event", "GET", base + event, "", nil},
		{"multiget-10", "REPORT", base, multiget(10), nil},
		{"multiget-50", "REPORT", base, multiget(50), nil},
		{"multiget-500", "REPORT", base, multiget(500), nil},
		{"sync-collection", "REPORT", base, `<?xml version="1.0"?><D:sync-collection xmlns:D="DAV:"><D:sync-token/><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>`, nil},
		{"query-month-etags", "REPORT", base, query("20261129T000000Z", "20261227T000000Z", false), []string{"Depth", "1"}},
		{"query-month-data", "REPORT", base, query("20261129T000000Z", "20261227T000000Z", true), []string{"Depth", "1"}},
		{"query-year-etags", "REPORT", base, query("20261129T000000Z", "20271129T000000Z", false), []string{"Depth", "1"}},
		{"query-year-data", "REPORT", base, query("20261129T000000Z", "20271129T000000Z", true), []string{"Depth", "1"}},
		{"query-year-data-2027", "REPORT", base, query("20271201T000000Z", "20281130T000000Z", true), []string{"Depth", "1"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			obs.take()
			w := serve(c.method, c.path, c.body, c.header...)
			if w.Code >= 300 {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
			units := 0.1 + obs.take()
			sent := w.Body.Len()
			cpu := cpuTime()
			for b.Loop() {
				serve(c.method, c.path, c.body, c.header...)
			}
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(units, "units/op")
			b.ReportMetric(float64(sent), "sent-bytes")
		})
	}
}

// cpuTime is the CPU time the process has used: under load, a fairer
// measure of a request's work than the wall clock.
func cpuTime() time.Duration {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// unzipped is an answer's body, gunzipped when it came gzipped.
func unzipped(t testing.TB, w *httptest.ResponseRecorder) string {
	t.Helper()
	if w.Header().Get("Content-Encoding") != "gzip" {
		return w.Body.String()
	}
	zr, err := gzip.NewReader(bytes.NewReader(w.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
