package graph

import (
	"encoding/base64"
	"fmt"
	"sort"

	"github.com/koredyne/schedule/graph/model"
)

// Lists that grow with use are cursor connections (first/after, edges,
// pageInfo, totalCount). A cursor is the opaque form of the row's sort key:
// a string that grows strictly along the list, so that a page after a row
// deleted since stays right (it starts at the next key).

const (
	defaultPage = 50
	maxPage     = 500
)

// paginate cuts the page that first and after ask for out of rows, which
// must be sorted by key, strictly increasing. It returns the page, the
// cursor of each of its rows, and the page info.
func paginate[T any](rows []T, first *int, after *string, key func(*T) string) ([]T, []string, *model.PageInfo, error) {
	n := defaultPage
	if first != nil {
		if *first < 0 || *first > maxPage {
			return nil, nil, nil, badInput("first", "Ask for 0 to %d items at a time, not %d", maxPage, *first)
		}
		n = *first
	}
	start := 0
	if after != nil {
		k, err := base64.RawURLEncoding.DecodeString(*after)
		if err != nil || len(k) == 0 {
			return nil, nil, nil, badInput("after", "The cursor %q is not one this list gave out", *after)
		}
		start = sort.Search(len(rows), func(i int) bool { return key(&rows[i]) > string(k) })
	}
	end := min(start+n, len(rows))
	page := rows[start:end]
	cursors := make([]string, len(page))
	for i := range page {
		cursors[i] = base64.RawURLEncoding.EncodeToString([]byte(key(&page[i])))
	}
	info := &model.PageInfo{HasNextPage: end < len(rows), HasPreviousPage: start > 0}
	if len(cursors) > 0 {
		info.StartCursor, info.EndCursor = &cursors[0], &cursors[len(cursors)-1]
	}
	return page, cursors, info, nil
}

// idKey is the sort key of a list in id order (ids are positive).
func idKey(id int64) string { return fmt.Sprintf("%020d", id) }
