package funcall_test

import (
	"testing"

	"github.com/toolapi/toolapi/internal/exportcheck"
)

// TestDescriptionsInWords checks every description of every format's
// declarations of the kitchen sink, which has a tool for each kind of
// input and rule: they are words, not schema fragments.
func TestDescriptionsInWords(t *testing.T) {
	_, set := kitchen(t)
	exportcheck.DescriptionsInWords(t, set, 100)
}
