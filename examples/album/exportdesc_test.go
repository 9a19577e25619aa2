package main

import (
	"testing"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/internal/exportcheck"
)

// In every function-calling format the album's declarations describe
// their tools and inputs in words only.
func TestExportDescriptionsInWords(t *testing.T) {
	s := newSQLiteStore(t)
	app, _ := newTestApp(t, s)
	exportcheck.DescriptionsInWords(t, funcall.New(app.Registry, mustUser(t, s, "admin")), 50)
}
