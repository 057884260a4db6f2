//go:build race

package main

// The race detector's shadow memory grows the process several times over,
// so a copy's resident memory says nothing under it.
func init() { raceDetector = true }
