//go:build deadlinetest

package main

import (
	"math/rand/v2"
	"os"
	"strings"
	"time"
)

// requestDeadline, in the deadlinetest build (tests only), is a deadline
// from KOREDYNE_TEST_DEADLINE instead of d: one duration, or a range
// "50ms-2s" from which each request draws its own, so that in a race of
// real processes deadlines pass at every point of a request, from checking
// its token to the write's COMMIT.
func requestDeadline(d time.Duration) time.Duration {
	lo, hi, ranged := strings.Cut(os.Getenv("KOREDYNE_TEST_DEADLINE"), "-")
	from, err := time.ParseDuration(lo)
	if err != nil {
		return d
	}
	if !ranged {
		return from
	}
	to, err := time.ParseDuration(hi)
	if err != nil || to <= from {
		return d
	}
	return from + rand.N(to-from)
}
