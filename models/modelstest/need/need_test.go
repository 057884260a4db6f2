package need

import (
	"testing"
)

// TestSummary counts, per missing program, the tests skipped for want of
// it and those that went on without it, and names each way to include
// it once.
func TestSummary(t *testing.T) {
	t.Setenv("CI", "")
	if got := Summary(); got != "" {
		t.Fatalf("nothing missing yet: %q", got)
	}
	t.Run("skipped", func(t *testing.T) { Missing(t, "chromium", "apt-get install chromium") })
	t.Run("again", func(t *testing.T) {
		MissingAll(t, Program{"chromium", "apt-get install chromium"}, Program{"haproxy", "apt install haproxy"})
	})
	t.Run("half", func(t *testing.T) { Without(t, "postgresql", "apt install postgresql, or set X") })
	t.Run("skipped later", func(t *testing.T) {
		Without(t, "postgresql", "apt install postgresql")
		t.Skip("needs PostgreSQL")
	})
	want := "./models/modelstest/need: no chromium, 2 tests skipped (apt-get install chromium); " +
		"no haproxy, 1 test skipped (apt install haproxy); " +
		"no postgresql, 1 test skipped and 1 test ran without it (apt install postgresql, or set X); " +
		Install + " installs them all."
	if got := Summary(); got != want {
		t.Errorf("summary\n%s\nwant\n%s", got, want)
	}
}
