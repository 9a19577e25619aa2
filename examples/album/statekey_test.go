package main

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"
)

// TestStateKeyShared checks that every process on one database signs MCP
// request state with the same key, made once.
func TestStateKeyShared(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "album.db")
	a, b := mustOpen(t, dsn), mustOpen(t, dsn)
	ctx := context.Background()
	ka, err := a.StateKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := b.StateKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ka) != 32 || !bytes.Equal(ka, kb) {
		t.Errorf("keys %x and %x: want one 32-byte key", ka, kb)
	}
	other, err := newSQLiteStore(t).StateKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(ka, other) {
		t.Error("two databases share a key")
	}
}

// TestStateKeyRace checks that processes asking for the key at the same
// moment on a new database all get the one stored, on both databases.
func TestStateKeyRace(t *testing.T) {
	eachDSN(t, func(t *testing.T, dsn string) {
		stores := make([]*Store, 8)
		for i := range stores {
			stores[i] = mustOpen(t, dsn)
		}
		keys := make([][]byte, len(stores))
		errs := make([]error, len(stores))
		var wg sync.WaitGroup
		for i, s := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				keys[i], errs[i] = s.StateKey(context.Background())
			}()
		}
		wg.Wait()
		for i := range keys {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if !bytes.Equal(keys[i], keys[0]) {
				t.Fatalf("process %d holds key %x, process 0 %x", i, keys[i], keys[0])
			}
		}
	})
}
