//go:build !deadlinetest

package main

import "time"

// requestDeadline is the deadline withDeadline gives a request: d. (The
// deadlinetest build, for tests only, shortens it.)
func requestDeadline(d time.Duration) time.Duration { return d }
