package engine

// CoprimeState lets the benchmarks in package engine_test build the business
// the oracle tests check.
var CoprimeState = coprimeState
