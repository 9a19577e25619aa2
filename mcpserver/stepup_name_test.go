package mcpserver

import (
	"io"
	"strings"
	"testing"
)

// toolsCallName finds the tool's name of a single tools/call wherever its
// members sit, and stops reading once it knows.
func TestToolsCallName(t *testing.T) {
	for _, tc := range []struct {
		body string
		name string // "" for none
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a__b","arguments":{"x":1}}}`, "a__b"},
		{`{"params":{"arguments":{"name":"decoy"},"name":"a.b"},"method":"tools/call","id":1}`, "a.b"},
		{`{"params":{"name":"a\u002eb"},"method":"tools/call"}`, "a.b"},
		{`{"method":"tools/list","params":{"name":"a__b"}}`, ""},
		{`{"method":"tools/call","params":{"arguments":{}}}`, ""},
		{`{"method":"tools/call","params":{"name":7}}`, ""},
		{`{"method":"tools/call","params":"a__b"}`, ""},
		{`[{"method":"tools/call","params":{"name":"a__b"}}]`, ""},
		{`{"method":"tools/call","params":{"name":"a__b"`, "a__b"}, // the SDK refuses the rest
		{`not json`, ""},
		{``, ""},
	} {
		name, ok := toolsCallName(strings.NewReader(tc.body))
		if name != tc.name || ok != (tc.name != "") {
			t.Errorf("%s: %q, %v; want %q", tc.body, name, ok, tc.name)
		}
	}

	// A call naming its tool first is read no further than the decoder's
	// first read: its arguments are not read at all.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a__b","arguments":{"text":"` + strings.Repeat("x", 1<<20) + `"}}}`
	r := &countingReader{r: strings.NewReader(body)}
	if name, ok := toolsCallName(r); !ok || name != "a__b" {
		t.Fatalf("%q, %v", name, ok)
	}
	t.Logf("read %d of %d bytes", r.n, len(body))
	if r.n > 64<<10 {
		t.Errorf("read %d bytes of a %d-byte call to find its name", r.n, len(body))
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
