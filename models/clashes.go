package models

import (
	"context"
	"fmt"
	"maps"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// AcceptedClash is the identity of a clash a business brought with it.
type AcceptedClash struct {
	bun.BaseModel `bun:"table:accepted_clashes"`

	BusinessID int64  `bun:",pk"`
	Key        string `bun:",pk"`
}

// acceptedClashes reads the identities of the clashes the business of rd
// brought with it into *out.
func acceptedClashes(rd rowReader, out *map[string]bool) error {
	var rows []AcceptedClash
	return rd.read(&rows, func(q *bun.SelectQuery, business any) *bun.SelectQuery {
		return q.Column("key").Where("business_id = ?", business)
	}, func() error {
		*out = make(map[string]bool, len(rows))
		for _, r := range rows {
			(*out)[r.Key] = true
		}
		return nil
	})
}

// accept remembers clashes as pre-existing and returns the accepted
// identities with them.
func accept(ctx context.Context, tx bun.IDB, business int64, known map[string]bool, clashes []engine.Clash) (map[string]bool, error) {
	out := maps.Clone(known)
	if out == nil {
		out = map[string]bool{}
	}
	var rows []AcceptedClash
	for _, c := range clashes {
		for _, k := range c.Keys() {
			if !out[k] {
				out[k] = true
				rows = append(rows, AcceptedClash{BusinessID: business, Key: k})
			}
		}
	}
	if len(rows) > 0 {
		if _, err := tx.NewInsert().Model(&rows).Exec(ctx); err != nil {
			return nil, fmt.Errorf("remembering the accepted clashes: %w", err)
		}
	}
	return out, nil
}
