package graphiql

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"html"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestAssetsMatchTheirSums checks every embedded file against the committed
// assets/SHA256SUMS, so that a changed, added or dropped asset is noticed
// (and its README updated with where it came from).
func TestAssetsMatchTheirSums(t *testing.T) {
	sums, err := fs.ReadFile(files, "assets/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("SHA256SUMS: bad line %q", sc.Text())
		}
		want[name] = sum
	}
	entries, err := fs.ReadDir(files, "assets")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if name == "SHA256SUMS" || name == "README.md" {
			continue
		}
		seen[name] = true
		b, _ := fs.ReadFile(files, "assets/"+name)
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want[name] {
			t.Errorf("assets/%s has sha256 %s, SHA256SUMS says %q", name, got, want[name])
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("SHA256SUMS lists %s, which is not embedded", name)
		}
	}
	for _, name := range served {
		if !seen[name] {
			t.Errorf("the page loads %s, which is not embedded", name)
		}
	}
}

// TestPage checks the page loads every asset from this server with its
// integrity, runs no inline script and carries its endpoint.
func TestPage(t *testing.T) {
	rec := httptest.NewRecorder()
	Handler("Koredyne <Schedule>", "/graphql").ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	page := rec.Body.String()
	if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if !strings.Contains(page, `data-endpoint="/graphql"`) || !strings.Contains(page, "<title>Koredyne &lt;Schedule&gt;</title>") {
		t.Errorf("the page lacks its endpoint or escaped title:\n%s", page)
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(refs) != len(served) || strings.Contains(page, "<script>") || strings.Contains(page, "<style") {
		t.Errorf("the page loads %d files (want %d) or holds inline code:\n%s", len(refs), len(served), page)
	}
	for _, m := range refs {
		if assets[m[1]] == nil {
			t.Errorf("the page loads %s, which Assets does not serve", m[1])
		}
	}
}

// TestAssets fetches every asset plain and gzipped, revalidates it, and
// asks for paths that are not an asset's.
func TestAssets(t *testing.T) {
	srv := httptest.NewServer(Assets)
	defer srv.Close()
	get := func(path string, headers ...string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultTransport.RoundTrip(req) // no transparent gunzip
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	for url, a := range assets {
		resp, body := get(url)
		if resp.StatusCode != 200 || !bytes.Equal(body, a.body) || resp.Header.Get("Content-Encoding") != "" ||
			resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || resp.Header.Get("Content-Type") != a.contentType {
			t.Errorf("GET %s: %d %v, %d bytes", url, resp.StatusCode, resp.Header, len(body))
		}
		resp, body = get(url, "Accept-Encoding", "br;q=1, gzip;q=0.8")
		z, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil || resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("GET %s gzipped: %v %v", url, err, resp.Header)
		}
		plain, _ := io.ReadAll(z)
		if !bytes.Equal(plain, a.body) {
			t.Errorf("GET %s gzipped: the body differs once unzipped", url)
		}
		t.Logf("%s: %d bytes, %d gzipped", a.name, len(a.body), len(body))
		if resp, _ := get(url, "If-None-Match", resp.Header.Get("ETag"), "Accept-Encoding", "gzip"); resp.StatusCode != http.StatusNotModified {
			t.Errorf("revalidating %s: %d", url, resp.StatusCode)
		}
		if resp, _ := get(url, "Accept-Encoding", "gzip;q=0"); resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("GET %s refusing gzip got it", url)
		}
	}
	for _, path := range []string{Prefix, Prefix + "boot.js", Prefix + "0000000000000000/boot.js", Prefix + "../graphiql.go",
		strings.TrimSuffix(byName("boot.js").url, "boot.js") + "graphiql.min.js", Prefix + "x/SHA256SUMS"} {
		if resp, _ := get(path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
}

// TestExampleIsTheREADMEs checks the query a new visitor finds in the
// editor is the first query of the README's tour, so the two cannot drift,
// and that the page carries it.
func TestExampleIsTheREADMEs(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```graphql\n")
	block, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("the README has no graphql block")
	}
	if example != block {
		t.Errorf("example.graphql is\n%s\nthe README's first query is\n%s", example, block)
	}
	rec := httptest.NewRecorder()
	Handler("Koredyne Schedule", "/graphql").ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	m := regexp.MustCompile(`data-default-query="([^"]*)"`).FindStringSubmatch(rec.Body.String())
	if m == nil || html.UnescapeString(m[1]) != example {
		t.Errorf("the page's default query is %q, want example.graphql", m)
	}
}
