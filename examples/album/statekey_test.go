package main

import (
	"bytes"
	"context"
	"path/filepath"
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
