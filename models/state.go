package models

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// LoadState reads the schedule of the business: everything the engine needs to
// compute its days and clashes, and the revisions that wrote it. Clients,
// subscriptions and the clients of one-offs stay in the database (see
// Client). Run it inside a transaction so that the tables are read at one
// point in time.
func (b *Business) LoadState(ctx context.Context, db bun.IDB) (engine.State, *Versions, error) {
	settings, err := b.Settings()
	if err != nil {
		return engine.State{}, nil, err
	}
	v := newVersions()
	v.Settings = b.SettingsRevision
	s := engine.State{Business: settings}
	if err := loadState(queryReader{ctx, db, b.ID}, &s, v); err != nil {
		return engine.State{}, nil, err
	}
	return s, v, nil
}

// loadState reads the schedule of rd's business into s and v: every
// table (tables) and then the versions.
func loadState(rd rowReader, s *engine.State, v *Versions) error {
	for _, t := range tables {
		if err := t.load(rd, s, v); err != nil {
			return err
		}
	}
	return loadVersions(rd, v)
}

// canonical puts a state in the form LoadState returns: the engine's
// canonical form (see engine.State.Canonical) without what the schedule
// snapshot leaves in the database (the tables stored apart: clients,
// subscriptions and the clients of one-offs). A state saved with SaveState
// and loaded again equals it.
func canonical(s *engine.State) {
	s.Canonical()
	for _, t := range tables {
		t.dropApart(s)
	}
}
