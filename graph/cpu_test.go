package graph_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used, user and system: on a
// machine shared with other work, the CPU a request costs is steadier than
// the requests a second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start (a cpuTime
// reading), client and server together when both run in the process.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/float64(b.N), "cpu-µs/op")
}
