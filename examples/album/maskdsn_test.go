package main

import (
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
