package main

import (
	"runtime/debug"
	"testing"
)

// TestSoftMemoryLimit: serve bounds the Go heap near its cache budget and
// its budget of requests under way unless GOMEMLIMIT says otherwise.
func TestSoftMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	t.Setenv("GOMEMLIMIT", "")
	softMemoryLimit(256<<20, 48<<20)
	if got := debug.SetMemoryLimit(-1); got != 368<<20 {
		t.Errorf("budgets of 256 MiB and 48 MiB set a limit of %d MiB, want 368", got>>20)
	}
	debug.SetMemoryLimit(old)
	t.Setenv("GOMEMLIMIT", "1GiB")
	softMemoryLimit(256<<20, 48<<20)
	if got := debug.SetMemoryLimit(-1); got != old {
		t.Errorf("with GOMEMLIMIT set the limit became %d, want it left at %d", got, old)
	}
}
