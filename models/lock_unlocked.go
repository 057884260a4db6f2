//go:build unlockedtest

package models

// lockWrites is off in this build: writes of one business interleave on
// PostgreSQL, and the race tests must see it overbook.
const lockWrites = false
