package models

import "testing"

// TestBroadcasterHoldsOnlyWhatSubscribersNeed: changes of businesses no
// one subscribes to leave nothing behind, a business's last revision goes
// with its last subscriber, and while subscribed each revision is still
// delivered once and in order (a write, then its own notification).
func TestBroadcasterHoldsOnlyWhatSubscribersNeed(t *testing.T) {
	var b broadcaster
	for id := range int64(10_000) {
		b.publish(Change{Business: id, Revision: 1})
	}
	if len(b.last) != 0 || len(b.subs) != 0 {
		t.Fatalf("after 10,000 businesses no one watches: %d last revisions, %d subscriptions held", len(b.last), len(b.subs))
	}
	ch, cancel := b.subscribe(7)
	b.publish(Change{Business: 7, Revision: 2})
	b.publish(Change{Business: 7, Revision: 2}) // heard back from PostgreSQL
	b.publish(Change{Business: 7, Revision: 1}) // a late notification
	if c := <-ch; c.Revision != 2 {
		t.Fatalf("delivered revision %d, want 2", c.Revision)
	}
	select {
	case c := <-ch:
		t.Fatalf("revision %d delivered again", c.Revision)
	default:
	}
	if w := b.watched(); len(w) != 1 || w[7] != 2 {
		t.Errorf("watched %v, want business 7 at 2", w)
	}
	cancel()
	if len(b.last) != 0 || len(b.subs) != 0 {
		t.Errorf("after the last subscriber left: %d last revisions, %d subscriptions held", len(b.last), len(b.subs))
	}
}
