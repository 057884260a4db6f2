package caldav

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
	"github.com/koredyne/schedule/models"
)

// TestETagIsTheBytes: an event's ETag is the digest of what it is written
// from (look), taken without writing it. Over random edits of generated
// businesses (renames, moves, cancellations, one-offs, closures) in two
// zones with daylight saving, and over the dates the clocks change, two
// events have the same ETag exactly when they are the same bytes: the
// ETag changes whenever the bytes do, and only then.
func TestETagIsTheBytes(t *testing.T) {
	today := engine.MustDate(2026, 12, 1)
	byTag := map[string]string{}   // ETag → object
	byBytes := map[string]string{} // object → ETag
	events := 0
	for z, zone := range []string{"Europe/Berlin", "America/New_York"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		st := enginetest.Business(enginetest.Options{ClassTimes: 40, Seed: uint64(z + 1), Today: today})
		st.Business.Location = loc
		rng := rand.New(rand.NewPCG(uint64(z+1), 11))
		for rev := 1; rev <= 30; rev++ {
			if rev > 1 {
				next := st.Clone()
				did := enginetest.RandomEdit(rng, &next, today)
				if engine.Validate(next) != nil {
					continue
				}
				st = next
				t.Logf("%s revision %d: %s", zone, rev, did)
			}
			sn, err := models.NewSnapshot(models.Business{ID: 1, Slug: "big", Name: st.Business.Name, Kind: string(st.Business.Kind), Revision: int64(rev)}, st)
			if err != nil {
				t.Fatal(err)
			}
			r := newRenderer(sn)
			// Around the spring change and the autumn one.
			for _, w := range [][2]engine.Date{{engine.MustDate(2027, 3, 1), engine.MustDate(2027, 3, 31)}, {engine.MustDate(2027, 10, 25), engine.MustDate(2027, 11, 10)}} {
				for _, e := range r.sessions(w[0], w[1], calendar{}.keep) {
					events++
					o := r.object(e).text()
					if old, ok := byTag[e.etag]; ok && old != o {
						t.Fatalf("%s revision %d: ETag %s names two objects:\n%s\n%s", zone, rev, e.etag, old, o)
					}
					if old, ok := byBytes[o]; ok && old != e.etag {
						t.Fatalf("%s revision %d: one object under ETags %s and %s:\n%s", zone, rev, old, e.etag, o)
					}
					byTag[e.etag], byBytes[o] = o, e.etag
				}
			}
		}
	}
	if len(byTag) < 500 || len(byTag) == events {
		t.Errorf("%d events, %d distinct: want many, and some the same from revision to revision", events, len(byTag))
	}
	t.Logf("%d events, %d distinct", events, len(byTag))
}
