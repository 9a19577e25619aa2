package directive

import (
	"strings"
	"testing"
)

// TestParseBudget checks the budget key of //tool:method: bytes, items,
// both, and the values it refuses, each named with the rule.
func TestParseBudget(t *testing.T) {
	good := []struct {
		line         string
		bytes, items int
	}{
		{`//tool:method id=x budget=16000`, 16000, 0},
		{`//tool:method id=x budget=50items`, 0, 50},
		{`//tool:method id=x budget=16000 budget=50items`, 16000, 50},
		{`//tool:method id=x budget=50items budget=1`, 1, 50},
		{`//tool:method id=x`, 0, 0},
	}
	for _, tt := range good {
		d, diags := Parse(tt.line, pos)
		if len(diags) > 0 {
			t.Errorf("%s: %v", tt.line, diags)
			continue
		}
		if b, i := d.Budget(); b != tt.bytes || i != tt.items {
			t.Errorf("%s: Budget() = %d, %d; want %d, %d", tt.line, b, i, tt.bytes, tt.items)
		}
	}
	bad := []struct {
		line string
		col  int
		msg  string
	}{
		{`//tool:method id=x budget=0`, 27, `budget: "0" is not a budget of //tool:method: the number of bytes must be from 1 to 100000000`},
		{`//tool:method id=x budget=-1`, 27, `budget: "-1" is not a budget of //tool:method: the number of bytes must be from 1`},
		{`//tool:method id=x budget=0items`, 27, `budget: "0items" is not a budget of //tool:method: the number of items must be from 1 to 100000`},
		{`//tool:method id=x budget=12kb`, 27, `budget: "12kb" is not a budget of //tool:method: give a positive number of bytes (budget=16000) or of items of a list output (budget=50items)`},
		{`//tool:method id=x budget=x`, 27, `budget: "x" is not a budget`},
		{`//tool:method id=x budget=items`, 27, `budget: "items" is not a budget`},
		{`//tool:method id=x budget=+5`, 27, `budget: "+5" is not a budget`},
		{`//tool:method id=x budget=5 items`, 29, `unknown key "items" for //tool:method`},
		{`//tool:method id=x budget`, 20, `budget: needs a value (budget=...)`},
		{`//tool:method id=x budget=1 budget=2`, 29, `budget: the byte budget is given twice`},
		{`//tool:method id=x budget=1items budget=2items`, 34, `budget: the item budget is given twice`},
		{`//tool:method id=x budgets=1`, 20, `unknown key "budgets" for //tool:method: did you mean budget?`},
		{`//tool:input w budget=1`, 16, `unknown key "budget" for //tool:input`},
	}
	for _, tt := range bad {
		t.Run(tt.line, func(t *testing.T) {
			_, diags := Parse(tt.line, pos)
			if len(diags) != 1 {
				t.Fatalf("diagnostics %v; want one saying %q", diags, tt.msg)
			}
			if d := diags[0]; !strings.Contains(d.Message, tt.msg) || d.Pos.Column != tt.col {
				t.Errorf("got %d: %q; want %d: %q", d.Pos.Column, d.Message, tt.col, tt.msg)
			}
		})
	}
}
