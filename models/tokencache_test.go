package models

import (
	"testing"
	"time"
)

// TestTokenCacheKeepsNoCheckOvertaken: a check begun before a revocation,
// or before the connection was lost, is not kept, and a revoked token is
// not kept again whatever a check finds.
func TestTokenCacheKeepsNoCheckOvertaken(t *testing.T) {
	now := time.Now()
	var c tokenCache
	p := Principal{BusinessID: 1, TokenID: 7, Revision: 3}
	c.put("a", p, c.begin(), now)
	if _, _, ok := c.get("a", now); ok {
		t.Fatal("held a token before listening")
	}
	c.listening(true)
	gen := c.begin()
	c.revoke(8, now) // another token's revocation
	c.put("a", p, gen, now)
	if _, _, ok := c.get("a", now); ok {
		t.Fatal("kept a check begun before a revocation")
	}
	c.put("a", p, c.begin(), now)
	c.saw(1, 5)
	if got, recheck, ok := c.get("a", now); !ok || got.Revision != 5 || recheck {
		t.Fatalf("got %+v %v %v, want the token at the revision heard, not due", got, recheck, ok)
	}
	if _, recheck, _ := c.get("a", now.Add(tokenRecheck+time.Second)); !recheck {
		t.Fatal("a token in use is not checked again")
	}
	if _, recheck, _ := c.get("a", now.Add(tokenRecheck+time.Second)); recheck {
		t.Fatal("two checks of one token at once")
	}
	if _, _, ok := c.get("a", now.Add(tokenExpire+time.Second)); ok {
		t.Fatal("held a token unused for longer than tokenExpire")
	}
	c.revoke(7, now)
	if _, _, ok := c.get("a", now); ok {
		t.Fatal("held a revoked token")
	}
	c.put("a", p, c.begin(), now)
	if _, _, ok := c.get("a", now); ok || !c.isRevoked(7) {
		t.Fatal("kept a revoked token a replica still had")
	}
	q := Principal{BusinessID: 1, TokenID: 9}
	c.put("b", q, c.begin(), now)
	gen = c.begin()
	c.listening(false)
	c.listening(true)
	c.put("b", q, gen, now)
	if _, _, ok := c.get("b", now); ok {
		t.Fatal("held a token over a loss of the connection")
	}
}
