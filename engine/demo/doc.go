// Package demo builds the three demo businesses of the design (§9) as plain
// engine values: a combat gym, a physio clinic and a business centre.
//
// Each demo is written as data tables — rooms, staff, classes, a weekly grid of
// class times and the series that sell them — with every date placed relative
// to the week it is built for, so a demo loaded today looks lived-in: its
// rotations are a few weeks in, a hand-over falls in the coming weeks, and
// this week holds a one-off and a change or two.
//
// The grids are laid out so that no room holds more than it can and nobody is
// in two places at once, on any date, for as long as the demo runs; the tests
// prove it with the engine's own clash check.
package demo
