package graph

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"hash"
	"sort"

	"github.com/koredyne/schedule/graph/model"
)

// Lists that grow with use are cursor connections (first/after, edges,
// pageInfo, totalCount). A cursor stands for the row's sort key: a string
// that grows strictly along the list, so that a page after a row deleted
// since stays right (it starts at the next key).
//
// The key of some lists holds what a client must not read (the clients
// list sorts by name), and a cursor the list did not give out must be
// refused, not read as a place in the list. So a cursor is the key sealed
// with the business's secret (models.Business.CursorKey): deterministic
// authenticated encryption in the synthetic-IV construction of RFC 5297
// (SIV), with HMAC-SHA-256 as its PRF. The tag is the first 16 bytes of
// HMAC(list, key) and the IV of AES-256-CTR over the key; opening decrypts
// and recomputes the tag. One row always has one cursor (a response the
// cache keeps stays right), a cursor of one list or business opens in no
// other, and every server on the database opens the cursors of the others.

const (
	defaultPage = 50
	maxPage     = 500
	// tagSize is the bytes of a cursor's tag (SIV's 128 bits).
	tagSize = 16
)

// cursors seals and opens the cursors of one list of one business, for
// one request (it is not safe for concurrent use).
type cursors struct {
	list  string
	mac   hash.Hash    // the PRF, keyed; Reset keeps the key
	block cipher.Block // AES-256, the cipher's key
}

// newCursors derives the keys of a list's cursors from the business's
// secret (HKDF-SHA-256, RFC 5869): 32 bytes for the PRF, 32 for AES.
func newCursors(secret, list string) (cursors, error) {
	k, err := hkdf.Key(sha256.New, []byte(secret), nil, "koredyne list cursors", 64)
	if err != nil {
		return cursors{}, fmt.Errorf("deriving the cursor keys: %w", err)
	}
	block, err := aes.NewCipher(k[32:])
	if err != nil {
		return cursors{}, fmt.Errorf("deriving the cursor keys: %w", err)
	}
	return cursors{list: list, mac: hmac.New(sha256.New, k[:32]), block: block}, nil
}

func (c cursors) tag(key []byte) []byte {
	c.mac.Reset()
	c.mac.Write([]byte(c.list))
	c.mac.Write([]byte{0})
	c.mac.Write(key)
	return c.mac.Sum(nil)[:tagSize]
}

// seal returns the cursor of a row's sort key.
func (c cursors) seal(key string) string {
	out := make([]byte, tagSize+len(key))
	tag := c.tag([]byte(key))
	copy(out, tag)
	cipher.NewCTR(c.block, tag).XORKeyStream(out[tagSize:], []byte(key))
	return base64.RawURLEncoding.EncodeToString(out)
}

// open returns the sort key a cursor stands for, and false for a cursor
// that this list of this business did not give out.
func (c cursors) open(cursor string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) <= tagSize {
		return "", false
	}
	tag, key := b[:tagSize], make([]byte, len(b)-tagSize)
	cipher.NewCTR(c.block, tag).XORKeyStream(key, b[tagSize:])
	if !hmac.Equal(tag, c.tag(key)) {
		return "", false
	}
	return string(key), true
}

// paginate cuts the page that first and after ask for out of rows, which
// must be sorted by key, strictly increasing. It returns the page, the
// cursor of each of its rows, and the page info.
func paginate[T any](c cursors, rows []T, first *int, after *string, key func(*T) string) ([]T, []string, *model.PageInfo, error) {
	n := defaultPage
	if first != nil {
		if *first < 0 || *first > maxPage {
			return nil, nil, nil, badInput("first", "Ask for 0 to %d items at a time, not %d", maxPage, *first)
		}
		n = *first
	}
	start := 0
	if after != nil {
		k, ok := c.open(*after)
		if !ok {
			return nil, nil, nil, badInput("after", "The cursor %q is not one this list gave out: pass a cursor or endCursor of this list", *after)
		}
		start = sort.Search(len(rows), func(i int) bool { return key(&rows[i]) > k })
	}
	end := min(start+n, len(rows))
	page := rows[start:end]
	out := make([]string, len(page))
	for i := range page {
		out[i] = c.seal(key(&page[i]))
	}
	info := &model.PageInfo{HasNextPage: end < len(rows), HasPreviousPage: start > 0}
	if len(out) > 0 {
		info.StartCursor, info.EndCursor = &out[0], &out[len(out)-1]
	}
	return page, out, info, nil
}

// idKey is the sort key of a list in id order (ids are positive).
func idKey(id int64) string { return fmt.Sprintf("%020d", id) }
