package cache

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAcceptsGzip(t *testing.T) {
	for header, want := range map[string]bool{
		"":                        false,
		"gzip":                    true,
		"gzip, deflate, br":       true,
		"br;q=1.0, gzip;q=0.8":    true,
		"gzip;q=0":                false,
		"gzip; q=0.000":           false,
		"identity":                false,
		"*":                       true,
		"*;q=0":                   false,
		"gzip;q=0, *":             false,
		"deflate, GZIP;q=0.5":     true,
		"x-gzip":                  true,
		"gzipped":                 false,
		"identity;q=1, *;q=0.001": true,
	} {
		r := httptest.NewRequest("GET", "/", nil)
		if header != "" {
			r.Header.Set("Accept-Encoding", header)
		}
		if got := AcceptsGzip(r); got != want {
			t.Errorf("Accept-Encoding %q: %v, want %v", header, got, want)
		}
	}
}

func TestGzipRoundTrip(t *testing.T) {
	if Gzip([]byte("small")) != nil {
		t.Error("compressed a body below MinGzip")
	}
	body := []byte(strings.Repeat("BEGIN:VEVENT\r\nSUMMARY:Spin\r\nEND:VEVENT\r\n", 200))
	z := Gzip(body)
	if z == nil || len(z) >= len(body) {
		t.Fatalf("gzip of %d bytes: %d", len(body), len(z))
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	back, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(back, body) {
		t.Fatalf("round trip: %v", err)
	}
}
