//go:build !unlockedtest

package models

// lockWrites makes a write hold its business's row lock from the first
// read to the commit. Only the unlockedtest build, which proves that the
// concurrency tests catch overbooking, turns it off.
const lockWrites = true
