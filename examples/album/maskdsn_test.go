package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaskDSN checks that no password of a database URL reaches a message.
func TestMaskDSN(t *testing.T) {
	for _, tc := range []struct{ dsn, want string }{
		{"data/album.db", "data/album.db"},
		{"postgres://album:s3cret@db.example.com:5432/album", "postgres://…@db.example.com:5432/album"},
		{"postgres://db.example.com/album?user=album&password=s3cret&sslmode=require", "postgres://db.example.com/album?user=album&password=…&sslmode=require"},
		{"postgresql://h/db?sslpassword=s3cret", "postgresql://h/db?sslpassword=…"},
		{"postgres://h/db?PASSWORD=s3cret", "postgres://h/db?PASSWORD=…"},
		{"postgres://h/db?pass%77ord=s3cret", "postgres://h/db?pass%77ord=…"},
		{"postgres://u:p@h/db?user=a@b&password=s3cret#x", "postgres://…@h/db?user=a@b&password=…#x"},
		{"postgres://h/db?password", "postgres://h/db?password"},
	} {
		got := maskDSN(tc.dsn)
		if got != tc.want {
			t.Errorf("maskDSN(%q) = %q, want %q", tc.dsn, got, tc.want)
		}
		if strings.Contains(got, "s3cret") {
			t.Errorf("maskDSN(%q) keeps the password", tc.dsn)
		}
	}
}

// A database that is neither a PostgreSQL URL nor a path is refused, and
// the error never quotes it: it may hold a password. No file is created.
func TestRefuseOtherDSNs(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, dsn := range []string{
		"host=db.example user=album password=hunter2 dbname=album",
		"password=hunter2",
		"mysql://album:hunter2@db.example/album",
		"sqlite://album:hunter2@x/album.db",
	} {
		s, err := OpenStore(t.Context(), dsn)
		if err == nil {
			s.Close()
			t.Errorf("%q: opened, want it refused", dsn)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "postgres://") {
			t.Errorf("%q: %v; want a refusal naming postgres:// without the password", dsn, err)
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("files created: %v", entries)
	}
	// A plain path still opens SQLite.
	s, err := OpenStore(t.Context(), filepath.Join("data", "album.db"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
