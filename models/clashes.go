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

func acceptedClashes(ctx context.Context, db bun.IDB, business int64) (map[string]bool, error) {
	var keys []string
	if err := db.NewSelect().Model((*AcceptedClash)(nil)).Column("key").Where("business_id = ?", business).Scan(ctx, &keys); err != nil {
		return nil, fmt.Errorf("reading the accepted clashes: %w", err)
	}
	out := make(map[string]bool, len(keys))
	for _, k := range keys {
		out[k] = true
	}
	return out, nil
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
