package reference_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/reference"
)

// FuzzRead: whatever bytes come in, Read answers with an import our engine
// accepts or with an error, never a panic; an *Error names where the
// problem is.
func FuzzRead(f *testing.F) {
	for _, path := range []string{"testdata/reference/export-office.json", "testdata/reference/export-clinic.json", "testdata/double_bookings.json"} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	small, err := json.Marshal(export())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	for _, s := range []string{``, `{}`, `[]`, `null`, `{"format":"recurring-scheduler-export","version":1,"tables":{"areas":[{"id":1e400}]}}`,
		`{"format":"recurring-scheduler-export","version":1,"tables":{"packages":[{"id":1,"name":"P","anchor_date":"9999-12-31","cycle_length":52}]}}`,
		`{"format":"recurring-scheduler-export","version":1,"tables":{"settings":[{"key":"name","value":"\u0000"}]}}`} {
		f.Add([]byte(s))
	}
	opts := reference.Options{Location: time.UTC, WeekStart: time.Monday, Name: "Fuzz"}
	f.Fuzz(func(t *testing.T, b []byte) {
		imp, err := reference.Read(bytes.NewReader(b), opts)
		var e *reference.Error
		switch {
		case errors.As(err, &e):
			if len(e.Problems) == 0 {
				t.Error("an *Error without problems")
			}
			return
		case err != nil:
			return
		}
		if err := engine.Validate(imp.State); err != nil {
			t.Fatalf("Read returned a state the engine refuses: %v", err)
		}
		if _, err := engine.New(imp.State); err != nil {
			t.Fatalf("engine.New: %v", err)
		}
	})
}
