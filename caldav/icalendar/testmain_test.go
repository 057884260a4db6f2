package icalendar_test

import (
	"testing"

	"github.com/koredyne/schedule/models/modelstest/need"
)

// TestMain says in one line what was skipped for want of a program (the
// independent expansion's Python libraries).
func TestMain(m *testing.M) { need.Main(m) }
