package explorer

import (
	"testing"

	"github.com/toolapi/toolapi/tool"
)

func TestHumanValues(t *testing.T) {
	durations := map[string]string{
		"PT18M5S": "18 min 5 s", "PT2H": "2 h", "P1DT2H": "1 d 2 h", "-PT0.5S": "minus 0.5 s", "PT0S": "0 s", "P1Y2M": "1 y 2 mo",
	}
	for in, want := range durations {
		if got, ok := humanDuration(in); !ok || got != want {
			t.Errorf("humanDuration(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "P", "18m", "PTXS", "PT5"} {
		if got, ok := humanDuration(bad); ok {
			t.Errorf("humanDuration(%q) = %q, want no reading", bad, got)
		}
	}
	times := []struct {
		in       string
		dateOnly bool
		want     string
	}{
		{"2026-12-01T14:30:00Z", false, "1 Dec 2026, 14:30 UTC"},
		{"2026-12-01T14:30:05+01:00", false, "1 Dec 2026, 13:30:05 UTC"},
		{"2026-12-01", true, "1 Dec 2026"},
		{"2026-12-01T00:00:00Z", true, "1 Dec 2026"},
	}
	for _, tt := range times {
		if got, ok := humanTime(tt.in, tt.dateOnly); !ok || got != tt.want {
			t.Errorf("humanTime(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	names := map[string]string{"track_count": "Track count", "result": "Result", "url": "Url"}
	for in, want := range names {
		if got := humanName(&tool.Definition{Name: in}); got != want {
			t.Errorf("humanName(%q) = %q, want %q", in, got, want)
		}
	}
	sh := &shower{e: &server{}}
	if v := sh.value(&tool.Definition{Type: "boolean"}, true); v.Kind != "mark" || v.Note != "✓" {
		t.Errorf("true shows as %+v", v)
	}
	if v := sh.value(&tool.Definition{Type: "duration"}, "PT18M5S"); v.Text != "18 min 5 s" {
		t.Errorf("PT18M5S shows as %+v", v)
	}
}
