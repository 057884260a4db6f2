package models

import (
	"context"
	"errors"
	"sync"
	"time"
)

// tokenCache holds the API tokens a store has checked, so that a request
// whose token was checked a moment ago costs no round trip to the
// database: on a busy machine that round trip was nearly all of a cached
// answer's time, and its tail all of its tail.
//
// It is a replica of the tokens in memory, kept current by what Listen
// hears, and used only where a replica may answer (with --replica-url,
// outside Primary): every write announces its revision, which raises the
// revision a cached token reports for its business, and every revocation
// announces the token, which leaves the cache at once. While Listen does
// not hear the database (before it runs, on SQLite, after its connection
// is lost and until it is back) the cache holds nothing. A token in use
// is checked against the database again in the background every
// tokenRecheck, and one unused for tokenExpire is checked before it is
// used, so that what no announcement tells (a row deleted by hand, a
// connection that died without an error) holds for seconds at most, as
// on a replica.
type tokenCache struct {
	mu   sync.Mutex
	live bool // Listen hears the database
	// gen counts revocations and losses of the connection: a check begun
	// before one is not kept.
	gen     uint64
	m       map[string]*cachedToken // by the token's hash
	revs    map[int64]int64         // the newest revision heard of each business
	revoked map[int64]time.Time     // tokens revoked lately, and when
}

type cachedToken struct {
	p          Principal
	checked    time.Time
	rechecking bool
}

// How often a token in use is checked again, and how long one unused is
// held (variables for the tests).
var tokenRecheck, tokenExpire = 5 * time.Second, time.Minute

const (
	// maxTokens bounds the tokens held; past it they are forgotten all
	// at once and checked afresh.
	maxTokens = 10000
	// keepRevoked is how long a revoked token is refused whatever a
	// replica still says of it: longer than a replica may lag.
	keepRevoked = 5 * time.Minute
)

// listening tells the cache whether Listen hears the database. Either way
// it starts empty: what was missed while not listening is not known.
func (c *tokenCache) listening(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = live
	c.gen++
	c.m, c.revs = nil, nil
}

// get returns the token of hash, if held and checked within tokenExpire,
// with the newest revision of its business heard; recheck is true for the
// one caller that should check it again.
func (c *tokenCache) get(hash string, now time.Time) (p Principal, recheck, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.m[hash]
	if t == nil || now.Sub(t.checked) > tokenExpire {
		return Principal{}, false, false
	}
	p = t.p
	p.Revision = max(p.Revision, c.revs[p.BusinessID])
	if now.Sub(t.checked) > tokenRecheck && !t.rechecking {
		t.rechecking, recheck = true, true
	}
	return p, recheck, true
}

// begin returns the generation a check of a token begins in, for put.
func (c *tokenCache) begin() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put keeps p, found for hash by a check begun in generation gen, unless
// a revocation or a loss of the connection came in between.
func (c *tokenCache) put(hash string, p Principal, gen uint64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || gen != c.gen || !c.revoked[p.TokenID].IsZero() {
		return
	}
	if c.m == nil || len(c.m) >= maxTokens {
		c.m = make(map[string]*cachedToken)
	}
	c.m[hash] = &cachedToken{p: p, checked: now}
}

// failed ends a check of the token of hash begun in gen that did not find
// it valid: bad, it found the token gone, which is dropped; else (the
// database did not answer) it is left to be checked again.
func (c *tokenCache) failed(hash string, gen uint64, bad bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.m[hash]; t != nil {
		if bad && gen == c.gen {
			delete(c.m, hash)
		} else {
			t.rechecking = false
		}
	}
}

// saw records that revision rev of a business was committed.
func (c *tokenCache) saw(business, rev int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live {
		return
	}
	if c.revs == nil {
		c.revs = make(map[int64]int64)
	}
	c.revs[business] = max(c.revs[business], rev)
}

// revoke drops a revoked token, and refuses it for keepRevoked.
func (c *tokenCache) revoke(id int64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for h, t := range c.m {
		if t.p.TokenID == id {
			delete(c.m, h)
		}
	}
	if c.revoked == nil {
		c.revoked = make(map[int64]time.Time)
	}
	for old, at := range c.revoked {
		if now.Sub(at) > keepRevoked {
			delete(c.revoked, old)
		}
	}
	c.revoked[id] = now
}

// isRevoked reports whether the token was revoked lately.
func (c *tokenCache) isRevoked(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.revoked[id].IsZero()
}

// Authenticate is the package's Authenticate on a replica when one may
// serve it: a token it does not know yet, or a revision of its business
// older than the request's client or this process knows, is asked of the
// primary. Where a replica may answer, a token checked lately is answered
// from memory (tokenCache).
func (s *Store) Authenticate(ctx context.Context, token string) (Principal, error) {
	hash := HashToken(token)
	cached := s.replicas != nil && !primaryOnly(ctx)
	if cached {
		now := time.Now()
		if p, recheck, ok := s.tokens.get(hash, now); ok && p.Revision >= s.replicas.floor(ctx, p.BusinessID) {
			if recheck {
				go s.recheckToken(hash)
			}
			return p, nil
		}
	}
	gen := s.tokens.begin()
	p, err := s.checkToken(ctx, hash)
	if err == nil && cached {
		s.tokens.put(hash, p, gen, time.Now())
	}
	return p, err
}

// checkToken checks a token's hash in the database, on a replica when one
// may serve ctx. A token this process heard revoked is refused, whatever a
// replica that has not replayed the revocation says.
func (s *Store) checkToken(ctx context.Context, hash string) (Principal, error) {
	var p Principal
	err := s.lagging(ctx, func(db *DB) error {
		var err error
		if p, err = authenticate(ctx, db, hash); err == nil && db != s.DB && p.Revision < s.replicas.floor(ctx, p.BusinessID) {
			return errBehind
		}
		return err
	})
	if err == nil && s.tokens.isRevoked(p.TokenID) {
		return Principal{}, ErrBadToken
	}
	return p, err
}

// recheckToken checks a cached token again, in the background of the
// request that found it due.
func (s *Store) recheckToken(hash string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	gen := s.tokens.begin()
	p, err := s.checkToken(ctx, hash)
	if err != nil {
		s.tokens.failed(hash, gen, errors.Is(err, ErrBadToken))
		return
	}
	s.tokens.put(hash, p, gen, time.Now())
}

func primaryOnly(ctx context.Context) bool {
	primary, _ := ctx.Value(primaryKey{}).(bool)
	return primary
}
