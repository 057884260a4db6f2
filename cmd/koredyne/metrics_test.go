package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestMetricsOperationNamesAreBounded sends more distinct operation names
// than get a label and checks the rest fold into "other", so clients cannot
// grow the metrics without end.
func TestMetricsOperationNamesAreBounded(t *testing.T) {
	m := newMetrics(func() int { return 3 })
	for i := range maxOperations + 50 {
		m.GraphQL(fmt.Sprintf("Op%d", i), "ok", time.Millisecond)
	}
	m.GraphQL("", "ok", time.Millisecond)
	m.GraphQL("Op0", "BAD_USER_INPUT", time.Millisecond)

	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]float64{}
	series := 0
	for _, f := range families {
		if f.GetName() != "koredyne_graphql_requests_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			series++
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			counts[labels["operation"]+" "+labels["outcome"]] = s.GetCounter().GetValue()
		}
	}
	for key, want := range map[string]float64{"other ok": 50, "anonymous ok": 1, "Op0 ok": 1, "Op0 BAD_USER_INPUT": 1, "Op199 ok": 1} {
		if counts[key] != want {
			t.Errorf("%s: got %v, want %v", key, counts[key], want)
		}
	}
	if want := maxOperations + 3; series != want {
		t.Errorf("got %d series, want %d", series, want)
	}
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(copiesMetric(3)), "koredyne_playground_copies"); err != nil {
		t.Error(err)
	}
}

// TestMetricsNilRecordsNothing calls every hook on a nil *Metrics, as code
// without metrics does.
func TestMetricsNilRecordsNothing(t *testing.T) {
	var m *Metrics
	m.GraphQL("Week", "ok", time.Second)
	m.CalDAV("REPORT", 207, time.Second)
	m.Write(writeCommitted)
	m.Cache(true)
}

// TestMetricsCalDAVMethodsAreBounded checks an invented method is counted
// as "other" and a known one under its name.
func TestMetricsCalDAVMethodsAreBounded(t *testing.T) {
	m := newMetrics(nil)
	m.CalDAV("REPORT", 207, time.Millisecond)
	m.CalDAV("BREW", 405, time.Millisecond)
	const want = `
# HELP koredyne_caldav_requests_total CalDAV and .ics feed requests answered, by method and status.
# TYPE koredyne_caldav_requests_total counter
koredyne_caldav_requests_total{method="REPORT",status="207"} 1
koredyne_caldav_requests_total{method="other",status="405"} 1
`
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want), "koredyne_caldav_requests_total"); err != nil {
		t.Error(err)
	}
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(copiesMetric(0)), "koredyne_playground_copies"); err != nil {
		t.Errorf("without a playground: %v", err)
	}
}

func copiesMetric(n int) string {
	return fmt.Sprintf(`
# HELP koredyne_playground_copies Private demo copies the playground holds in memory.
# TYPE koredyne_playground_copies gauge
koredyne_playground_copies %d
`, n)
}
