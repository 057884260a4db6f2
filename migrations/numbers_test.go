package migrations

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// TestOneFilePerNumber: the embedded migrations have a number each, and two
// migrations of one number are refused by name.
func TestOneFilePerNumber(t *testing.T) {
	for dir, files := range map[string]fs.FS{"postgres": postgresFiles, "sqlite": sqliteFiles} {
		sub, err := fs.Sub(files, dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := oneFilePerNumber(sub); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
	twice := fstest.MapFS{
		"20261213000001_shard_keys.tx.up.sql":         {Data: []byte("SELECT 1")},
		"20261213000001_shard_keys.tx.down.sql":       {Data: []byte("SELECT 1")},
		"20261213000001_business_indexes.tx.up.sql":   {Data: []byte("SELECT 1")},
		"20261213000001_business_indexes.tx.down.sql": {Data: []byte("SELECT 1")},
	}
	err := oneFilePerNumber(twice)
	if err == nil || !strings.Contains(err.Error(), "20261213000001_business_indexes.tx.up.sql") || !strings.Contains(err.Error(), "20261213000001_shard_keys.tx.up.sql") {
		t.Errorf("two migrations of one number: %v", err)
	}
}
