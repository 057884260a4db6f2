package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/koredyne/schedule/graph/model"
)

// paged is one page of a connection: its rows, the cursor of each, the
// page info and how many rows the whole list holds.
type paged[T any] struct {
	nodes   []T
	cursors []string
	info    *model.PageInfo
	total   int
}

// pageOf sorts rows by key (which must be unique: it is the list's
// documented order) and cuts the page first and after ask for; list names
// the list, whose cursors open in no other.
func pageOf[T any](ctx context.Context, r *Resolver, list string, rows []T, first *int, after *string, key func(*T) string) (paged[T], error) {
	c, err := r.cursors(ctx, list)
	if err != nil {
		return paged[T]{}, err
	}
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b T) int { return strings.Compare(key(&a), key(&b)) })
	nodes, cursors, info, err := paginate(c, rows, first, after, key)
	if nodes == nil {
		nodes = []T{}
	}
	return paged[T]{nodes: nodes, cursors: cursors, info: info, total: len(rows)}, err
}

// cursors seals and opens the cursors of a list of the request's business.
func (r *Resolver) cursors(ctx context.Context, list string) (cursors, error) {
	sn, err := r.snapshot(ctx)
	if err != nil {
		return cursors{}, err
	}
	if sn.Business.CursorKey == "" {
		return cursors{}, fmt.Errorf("business %d has no cursor key", sn.Business.ID)
	}
	return newCursors(sn.Business.CursorKey, list)
}

// edges pairs a page's rows with their cursors as a connection's edges.
func edges[T, E any](p paged[T], edge func(cursor string, node *T) E) []E {
	out := make([]E, len(p.nodes))
	for i := range p.nodes {
		out[i] = edge(p.cursors[i], &p.nodes[i])
	}
	return out
}

// seqKey is a sort key of whole numbers in order, each of any sign: the
// key of a list ordered by (date, start, id) and the like.
func seqKey(ns ...int64) string {
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, "%016x", uint64(n)^(1<<63))
	}
	return b.String()
}
