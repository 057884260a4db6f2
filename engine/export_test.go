package engine

// CoprimeState lets the benchmarks in package engine_test build the business
// the oracle tests check.
var CoprimeState = coprimeState

// ClashesByDays lets tests in package engine_test check a proof against
// the one that resolves whole days.
func ClashesByDays(t *Timetable, today Date) Report {
	r, _ := t.clashesByDays(today, nil)
	return r
}
