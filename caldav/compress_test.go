package caldav_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/koredyne/schedule/caldav"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/modelstest"
)

// raw is a client that neither asks for gzip nor undoes it, so the tests
// see the bytes on the wire.
var raw = &http.Client{Transport: &http.Transport{DisableCompression: true}}

func send(t *testing.T, method, url, user, pass, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := raw.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, out
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFeedGzip fetches the whole gym's feed plain and gzipped: the same
// calendar, each with an ETag of its own (a strong ETag differs between
// codings), Vary: Accept-Encoding, and 304 for the ETag of the coding the
// client takes. It logs the sizes on the wire.
func TestFeedGzip(t *testing.T) {
	g := newGateway(t, modelstest.SQLite(t), "harbor", engine.Gym, 8, 52)
	url := g.feed("all")
	plainResp, plain := send(t, "GET", url, "", "", "")
	zipResp, zipped := send(t, "GET", url, "", "", "", "Accept-Encoding", "gzip")
	if plainResp.StatusCode != 200 || zipResp.StatusCode != 200 {
		t.Fatalf("status %d, %d", plainResp.StatusCode, zipResp.StatusCode)
	}
	if plainResp.Header.Get("Content-Encoding") != "" || zipResp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q and %q", plainResp.Header.Get("Content-Encoding"), zipResp.Header.Get("Content-Encoding"))
	}
	for _, r := range []*http.Response{plainResp, zipResp} {
		if r.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("Vary %q", r.Header.Get("Vary"))
		}
	}
	if !bytes.Equal(gunzip(t, zipped), plain) {
		t.Fatal("the gzipped feed is not the plain one")
	}
	pe, ze := plainResp.Header.Get("ETag"), zipResp.Header.Get("ETag")
	if pe == "" || ze == "" || pe == ze {
		t.Fatalf("ETags %q and %q", pe, ze)
	}
	t.Logf("whole-business feed: %d bytes plain, %d gzipped (%.1f×)", len(plain), len(zipped), float64(len(plain))/float64(len(zipped)))
	if len(zipped) > 300<<10 {
		t.Errorf("the gzipped feed is %d bytes", len(zipped))
	}
	for _, c := range []struct {
		inm, accept string
		want        int
		etag        string // of the representation the client takes
	}{
		{pe, "", http.StatusNotModified, pe},
		{ze, "gzip", http.StatusNotModified, ze},
		{"W/" + ze, "gzip", http.StatusNotModified, ze},
		{pe + ", " + ze, "gzip", http.StatusNotModified, ze},
		{pe, "gzip", http.StatusOK, ze}, // the plain bytes' tag is not the gzipped bytes'
		{ze, "", http.StatusOK, pe},
		{`"` + strings.Repeat("0", 32) + `"`, "gzip", http.StatusOK, ze},
	} {
		// Asked of the gateway that wrote the feed, and of a fresh one
		// that holds nothing of the business: it answers 304 from the
		// listing's ETags, without writing an event.
		fresh := httptest.NewServer(caldav.NewHandler(g.store, slog.New(slog.NewTextHandler(io.Discard, nil))))
		for _, u := range []string{url, fresh.URL + strings.TrimPrefix(url, g.srv.URL)} {
			resp, body := send(t, "GET", u, "", "", "", "If-None-Match", c.inm, "Accept-Encoding", c.accept)
			if resp.StatusCode != c.want || resp.Header.Get("ETag") != c.etag {
				t.Errorf("If-None-Match %s, Accept-Encoding %q: %d with ETag %s, want %d with %s", c.inm, c.accept, resp.StatusCode, resp.Header.Get("ETag"), c.want, c.etag)
			}
			if c.want == http.StatusNotModified && (len(body) != 0 || resp.Header.Get("Content-Encoding") != "") {
				t.Errorf("304 with a body of %d or Content-Encoding %q", len(body), resp.Header.Get("Content-Encoding"))
			}
		}
		fresh.Close()
	}
}

// TestReportGzip asks for a month of the gym plain and gzipped: the same
// multistatus either way.
func TestReportGzip(t *testing.T) {
	g := newGateway(t, modelstest.SQLite(t), "harbor", engine.Gym, 8, 52)
	url := g.srv.URL + "/caldav/harbor/calendars/all/"
	plainResp, plain := send(t, "REPORT", url, "harbor", g.token, monthQuery, "Depth", "1")
	zipResp, zipped := send(t, "REPORT", url, "harbor", g.token, monthQuery, "Depth", "1", "Accept-Encoding", "gzip")
	if plainResp.StatusCode != 207 || zipResp.StatusCode != 207 || zipResp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("status %d, %d, Content-Encoding %q", plainResp.StatusCode, zipResp.StatusCode, zipResp.Header.Get("Content-Encoding"))
	}
	if !bytes.Equal(gunzip(t, zipped), plain) {
		t.Fatal("the gzipped REPORT is not the plain one")
	}
	t.Logf("month REPORT: %d bytes plain, %d gzipped", len(plain), len(zipped))
	// An error is sent as it is.
	resp, _ := send(t, "REPORT", g.srv.URL+"/caldav/harbor/calendars/nope/", "harbor", g.token, monthQuery, "Depth", "1", "Accept-Encoding", "gzip")
	if resp.StatusCode != 404 || resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("error: %d, Content-Encoding %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
}
