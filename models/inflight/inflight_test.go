package inflight

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// manual is a budget whose waits end only when the test says so.
func manual(limit int64) (*Budget, func()) {
	b := New(limit, time.Hour)
	end := make(chan time.Time)
	b.after = func(time.Duration) <-chan time.Time { return end }
	return b, func() { close(end) }
}

// waitFor polls until n holds wait on b.
func waitFor(t *testing.T, b *Budget, n int) {
	t.Helper()
	for b.Stats().Waiting != n {
		time.Sleep(time.Millisecond)
	}
}

func TestHoldWaitsForReleasedBytes(t *testing.T) {
	b, _ := manual(100)
	ctx := context.Background()
	first, err := b.Hold(ctx, 70)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error)
	go func() {
		h, err := b.Hold(ctx, 50)
		if err == nil && h.Bytes() != 50 {
			err = errors.New("the hold holds the wrong bytes")
		}
		got <- err
	}()
	waitFor(t, b, 1)
	if s := b.Stats(); s.Held != 70 {
		t.Fatalf("held %d while one waits, want 70", s.Held)
	}
	first.Release()
	first.Release() // a second release gives nothing more back
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if s := b.Stats(); s.Held != 50 || s.Most != 70 || s.Taken != 120 || s.Refused != 0 {
		t.Errorf("got %+v, want 50 held, most 70, 120 taken, none refused", s)
	}
}

func TestHoldGivesUpAfterItsWait(t *testing.T) {
	b, end := manual(100)
	ctx := context.Background()
	if _, err := b.Hold(ctx, 100); err != nil {
		t.Fatal(err)
	}
	got := make(chan error)
	go func() {
		_, err := b.Hold(ctx, 1)
		got <- err
	}()
	waitFor(t, b, 1)
	end()
	if err := <-got; !errors.Is(err, ErrBusy) {
		t.Fatalf("got %v, want ErrBusy", err)
	}
	if s := b.Stats(); s.Held != 100 || s.Refused != 1 || s.Waiting != 0 {
		t.Errorf("got %+v, want 100 held, one refused, none waiting", s)
	}
}

func TestHoldEndsWithItsRequest(t *testing.T) {
	b, _ := manual(10)
	if _, err := b.Hold(context.Background(), 10); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error)
	go func() {
		_, err := b.Hold(ctx, 5)
		got <- err
	}()
	waitFor(t, b, 1)
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if s := b.Stats(); s.Held != 10 || s.Refused != 0 || s.Waiting != 0 {
		t.Errorf("got %+v, want 10 held, none refused or waiting", s)
	}
}

// TestSmallPassesLarge: a waiter that fits is given its bytes while an
// earlier, larger one still waits.
func TestSmallPassesLarge(t *testing.T) {
	b, _ := manual(100)
	ctx := context.Background()
	first, _ := b.Hold(ctx, 60)
	large := make(chan *Hold)
	go func() {
		h, err := b.Hold(ctx, 90)
		if err != nil {
			t.Error(err)
		}
		large <- h
	}()
	waitFor(t, b, 1)
	small, err := b.Hold(ctx, 40)
	if err != nil {
		t.Fatal(err)
	}
	first.Release()
	small.Release()
	if h := <-large; h.Bytes() != 90 {
		t.Errorf("the large hold has %d bytes, want 90", h.Bytes())
	}
}

// TestMoreThanTheBudget: a request larger than the whole budget is told
// so at once, whatever is held, and a hold that would grow past it keeps
// what it has.
func TestMoreThanTheBudget(t *testing.T) {
	b, _ := manual(100)
	ctx := context.Background()
	if _, err := b.Hold(ctx, 101); !errors.Is(err, ErrTooLarge) {
		t.Errorf("101 bytes of 100: %v, want ErrTooLarge", err)
	}
	h, err := b.Hold(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Grow(ctx, 1); !errors.Is(err, ErrTooLarge) || h.Bytes() != 100 {
		t.Errorf("growing a hold of the whole budget: %v with %d bytes, want ErrTooLarge keeping 100", err, h.Bytes())
	}
	h.Release()
	if _, _, err := b.Read(ctx, strings.NewReader("abc"), 60, 1000, 2); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a body of 60 bytes held twice in 100: %v, want ErrTooLarge", err)
	}
	if s := b.Stats(); s.Held != 0 || s.Refused != 0 || s.Waiting != 0 {
		t.Errorf("got %+v, want nothing held, refused or waiting", s)
	}
}

func TestNilBudgetHoldsNothingBack(t *testing.T) {
	var b *Budget
	h, err := b.Hold(context.Background(), 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	h.Release()
	body, h, err := b.Read(context.Background(), bytes.NewReader([]byte("abc")), 3, 10, 2)
	if err != nil || string(body) != "abc" {
		t.Fatalf("got %q, %v", body, err)
	}
	h.Release()
}

// TestNeverMoreThanTheLimit: goroutines taking and giving back random
// amounts never hold more than the budget together, and leave nothing
// held.
func TestNeverMoreThanTheLimit(t *testing.T) {
	b := New(1000, time.Hour)
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 200 {
				h, err := b.Hold(ctx, r.Int64N(400)+1)
				if err != nil {
					t.Error(err)
					return
				}
				if r.IntN(2) == 0 {
					// Another hold that grows may be waiting: then this one
					// gives up at once.
					if err := h.Grow(ctx, r.Int64N(300)); err != nil && !errors.Is(err, ErrBusy) {
						t.Error(err)
					}
				}
				h.Release()
			}
		}()
	}
	wg.Wait()
	if s := b.Stats(); s.Held != 0 || s.Most > 1000 || s.Waiting != 0 {
		t.Errorf("got %+v, want nothing held or waiting, never more than 1000", s)
	}
}

// chunks reads a body a few bytes at a time and counts what was read.
type chunks struct {
	data []byte
	read int
	fail error // returned instead of io.EOF when set
}

func (c *chunks) Read(p []byte) (int, error) {
	if c.read == len(c.data) {
		if c.fail != nil {
			return 0, c.fail
		}
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1000)], c.data[c.read:])
	c.read += n
	return n, nil
}

func TestRead(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 50000) // 500,000 bytes
	ctx := context.Background()
	for _, tc := range []struct {
		name          string
		size, max     int64
		fail          error
		wantErr       bool
		wantTooLarge  bool
		wantRead      int   // bytes of the body read, -1: any
		heldMin, most int64 // of the budget while the body was held
	}{
		{name: "a known size, held before reading", size: 500000, max: 1 << 20, wantRead: 500000, heldMin: 1000000, most: 1000000},
		{name: "a known size over the limit, not read", size: 500000, max: 400000, wantErr: true, wantTooLarge: true, wantRead: 0},
		{name: "an unknown size, held in parts", size: -1, max: 1 << 20, wantRead: 500000, heldMin: 1000000, most: 2 * 1000000},
		{name: "an unknown size over the limit", size: -1, max: 300000, wantErr: true, wantTooLarge: true, wantRead: -1},
		{name: "a body cut short", size: -1, max: 1 << 20, fail: io.ErrUnexpectedEOF, wantErr: true, wantRead: 500000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(4<<20, time.Hour)
			c := &chunks{data: data, fail: tc.fail}
			body, h, err := b.Read(ctx, c, tc.size, tc.max, 2)
			var tooLarge *http.MaxBytesError
			switch {
			case tc.wantErr && err == nil:
				t.Fatalf("read %d bytes, want an error", len(body))
			case !tc.wantErr && err != nil:
				t.Fatal(err)
			case tc.wantTooLarge && (!errors.As(err, &tooLarge) || tooLarge.Limit != tc.max):
				t.Errorf("got %v, want *http.MaxBytesError of %d", err, tc.max)
			}
			if tc.wantRead >= 0 && c.read != tc.wantRead {
				t.Errorf("%d bytes of the body read, want %d", c.read, tc.wantRead)
			}
			s := b.Stats()
			if err != nil {
				if s.Held != 0 {
					t.Errorf("%d bytes held after an error", s.Held)
				}
				return
			}
			if !bytes.Equal(body, data) {
				t.Fatalf("read %d bytes, not the body", len(body))
			}
			if s.Held != h.Bytes() || s.Held < tc.heldMin || s.Most > tc.most {
				t.Errorf("got %+v (hold %d), want at least %d held and at most %d", s, h.Bytes(), tc.heldMin, tc.most)
			}
			if int64(cap(body))*2 > h.Bytes() {
				t.Errorf("the body's buffer has %d bytes, more than the hold counts (%d for two a byte)", cap(body), h.Bytes())
			}
			h.Release()
			if b.Stats().Held != 0 {
				t.Errorf("%d held after the release", b.Stats().Held)
			}
		})
	}
}
