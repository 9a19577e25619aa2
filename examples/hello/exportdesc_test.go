package main

import (
	"testing"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/internal/exportcheck"
	"github.com/toolapi/toolapi/tool"
)

// In every function-calling format the example's declarations describe
// their tools and inputs in words only.
func TestExportDescriptionsInWords(t *testing.T) {
	reg := tool.NewRegistry(nil)
	if err := reg.Add(tools()...); err != nil {
		t.Fatal(err)
	}
	exportcheck.DescriptionsInWords(t, funcall.New(reg, &tool.User{ID: "admin", Permissions: []string{"launch rockets"}}), 20)
}
