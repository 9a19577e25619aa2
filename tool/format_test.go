package tool

import (
	"math/rand/v2"
	"net/url"
	"testing"
)

// TestSimpleWebURL checks the URI fast path against url.Parse: whatever
// it accepts, url.Parse accepts as absolute.
func TestSimpleWebURL(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "hts:/p.a-_~%[]@?#e1 xw"
	accepted := 0
	for range 200000 {
		b := []byte("http")
		if rng.IntN(2) == 0 {
			b = append(b, 's')
		}
		b = append(b, "://"...)
		for range rng.IntN(12) {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		s := string(b)
		if simpleWebURL(s) {
			accepted++
			u, err := url.Parse(s)
			if err != nil || !u.IsAbs() {
				t.Fatalf("simpleWebURL accepts %q, url.Parse says %v", s, err)
			}
		}
	}
	if accepted == 0 {
		t.Fatal("the generator never produced a simple URL")
	}
	t.Logf("%d simple URLs checked", accepted)
}
