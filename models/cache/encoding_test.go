package cache

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
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

// TestGzipReusedWritersAgree: compressors taken from the pools, by many
// goroutines at once, give exactly the bytes a new compressor gives, so no
// state of one body leaks into the next.
func TestGzipReusedWritersAgree(t *testing.T) {
	fresh := func(b []byte, level int) []byte {
		if len(b) < MinGzip {
			return nil
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, level)
		zw.Write(b)
		zw.Close()
		if buf.Len() >= len(b) {
			return nil
		}
		return buf.Bytes()
	}
	bodies := make([][]byte, 40)
	for i := range bodies {
		r := rand.New(rand.NewPCG(uint64(i), 9))
		var sb strings.Builder
		for range 50 + r.IntN(2000) {
			if r.IntN(4) == 0 {
				sb.WriteByte(byte(r.IntN(256))) // some bodies barely shrink
			} else {
				sb.WriteString([]string{"BEGIN:VEVENT\r\n", "SUMMARY:", "Spin ", "Room A", "\r\n"}[r.IntN(5)])
			}
		}
		bodies[i] = []byte(sb.String())
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for round := range 5 {
				for i := range bodies {
					b := bodies[(i+g*7+round)%len(bodies)]
					if got, want := Gzip(b), fresh(b, gzip.DefaultCompression); !bytes.Equal(got, want) {
						t.Errorf("a body of %d bytes: %d bytes from a reused compressor, %d from a new one", len(b), len(got), len(want))
						return
					}
					if got, want := GzipFast(b), fresh(b, 2); !bytes.Equal(got, want) {
						t.Errorf("a body of %d bytes: %d bytes from a reused fast compressor, %d from a new one", len(b), len(got), len(want))
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestVaryEncoding lists Accept-Encoding once, beside what Vary holds.
func TestVaryEncoding(t *testing.T) {
	for _, c := range []struct {
		name       string
		vary, want []string
	}{
		{"none", nil, []string{"Accept-Encoding"}},
		{"another", []string{"Origin"}, []string{"Origin", "Accept-Encoding"}},
		{"listed", []string{"Accept-Encoding"}, []string{"Accept-Encoding"}},
		{"in a list", []string{"Origin, accept-encoding"}, []string{"Origin, accept-encoding"}},
	} {
		h := http.Header{}
		for _, v := range c.vary {
			h.Add("Vary", v)
		}
		VaryEncoding(h)
		if got := h.Values("Vary"); !slices.Equal(got, c.want) {
			t.Errorf("%s: Vary %q, want %q", c.name, got, c.want)
		}
	}
}
