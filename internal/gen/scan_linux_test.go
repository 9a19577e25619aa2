package gen

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestEntriesShortListings lists a directory whose every getdents64 call
// returns one entry, as the kernel may return fewer entries than fit: the
// listing must go on until a call returns nothing.
func TestEntriesShortListings(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.go", "b.go", "c.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"sub", "testdata"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	defer func(f func(int, []byte) (int, error)) { getdents = f }(getdents)
	calls := 0
	getdents = func(fd int, buf []byte) (int, error) {
		calls++
		// 40 bytes hold one record of a short name, not two.
		return syscall.ReadDirent(fd, buf[:40])
	}
	d, err := openDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	es, err := d.entries()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		name := e.name
		if e.dir {
			name += "/"
		}
		got = append(got, name)
	}
	slices.Sort(got)
	if want := []string{"a.go", "b.go", "c.txt", "sub/", "testdata/"}; !slices.Equal(got, want) {
		t.Errorf("entries = %q, want %q", got, want)
	}
	if calls < 7 {
		t.Errorf("%d getdents calls for 7 entries: the listings were not short", calls)
	}
}

// TestScanClosesDirectories checks that a scan leaves no directory open:
// those its subdirectories were opened relative to included, with
// overlapping patterns, a nested module and a directory that fails to
// read.
func TestScanClosesDirectories(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a/b/c/x.go", "a/b/d/y.go", "a/e/z.go", "m/go.mod", "m/sub/w.go", "a/testdata/t.go"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("package p\n//tool:method id=x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "a", "locked"), 0o000); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(dir, "a", "locked"), 0o755)
	openFDs := func() int {
		es, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd:", err)
		}
		return len(es)
	}
	before := openFDs()
	for range 20 {
		Scan(dir, []string{"./...", "a/...", "a/b"}) // the locked directory fails unless run as root
	}
	if after := openFDs(); after != before {
		t.Errorf("%d descriptors open after the scans, %d before", after, before)
	}
}
