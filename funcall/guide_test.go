package funcall_test

import (
	"os"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/funcall"
)

// TestGuideListsFormats fails when the guide's section on export formats
// leaves a format out: each needs a table row, its name in backquotes
// first, saying who reads it.
func TestGuideListsFormats(t *testing.T) {
	data, err := os.ReadFile("../docs/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n### Export formats\n")
	if !ok {
		t.Fatal("docs/guide.md has no section headed \"### Export formats\"")
	}
	section, _, _ = strings.Cut(section, "\n#")
	rows := map[string]string{}
	for l := range strings.Lines(section) {
		cells := strings.Split(strings.TrimSpace(l), "|")
		if len(cells) == 4 {
			rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[2])
		}
	}
	for _, f := range funcall.Formats() {
		if who := rows[string(f)]; len(who) < 10 {
			t.Errorf("docs/guide.md: the export formats table says nothing of %s (row %q)", f, who)
		}
	}
}
