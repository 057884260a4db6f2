package page_test

import (
	"testing"

	"github.com/koredyne/schedule/models/modelstest/need"
)

// TestMain stops what the tests started for all of them (the local
// PostgreSQL) and says in one line what was skipped for want of a program.
func TestMain(m *testing.M) { need.Main(m) }
