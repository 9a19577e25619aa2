package gen

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"
)

// benchTree writes a module of n one-file service packages, ten methods
// each, of which the first tools carry //tool: directives, and returns
// its directory and the total size of its Go files.
func benchTree(tb testing.TB, n, tools int) (string, int64) {
	tb.Helper()
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/bench\n\ngo 1.26\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	filler := strings.Repeat("// It reads the records of the store, checks each against the rules of the\n// service, and writes what it found to the log, so an operator can follow it.\n", 2)
	var total int64
	for i := range n {
		pkg := fmt.Sprintf("svc%03d", i)
		var b strings.Builder
		fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"context\"\n\t\"time\"\n)\n\n", pkg)
		fmt.Fprintf(&b, "// A Record is a stored record.\ntype Record struct {\n\t// Name names it.\n\tName string `tool:\"name\"`\n\t// At is when it was made.\n\tAt time.Time `tool:\"at\"`\n}\n\n")
		fmt.Fprintf(&b, "// Service serves records.\ntype Service struct{ records []Record }\n\n")
		for m := range 10 {
			fmt.Fprintf(&b, "// Method%d finds records whose name contains a word.\n//\n%s//\n//   - word: The word to look for.\n//   - limit: How many at most.\n//\n// Returns the records that matched.\n", m, filler)
			if i < tools {
				fmt.Fprintf(&b, "//\n//tool:method id=%s.method%d op=read permission=\"access content\"\n//tool:input limit default=10 range=1..100\n", pkg, m)
			}
			fmt.Fprintf(&b, "func (s *Service) Method%d(ctx context.Context, word string, limit int, since *time.Time) ([]Record, error) {\n", m)
			fmt.Fprintf(&b, "\tvar out []Record\n\tfor _, r := range s.records {\n\t\tif len(out) < limit && r.Name == word && (since == nil || r.At.After(*since)) {\n\t\t\tout = append(out, r)\n\t\t}\n\t}\n\treturn out, nil\n}\n\n")
		}
		if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
			tb.Fatal(err)
		}
		src := b.String()
		total += int64(len(src))
		if err := os.WriteFile(filepath.Join(dir, pkg, "service.go"), []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	// The tree is on disk before anything is measured: no writeback runs
	// beside the benchmark.
	syncFiles()
	return dir, total
}

// naiveScan is the baseline: a sequential walk reading every file.
func naiveScan(dir string) (int, error) {
	hits := 0
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(data, marker) {
			hits++
		}
		return nil
	})
	return hits, err
}

// BenchmarkScan measures the byte scan of 900 service files (about 7 MB)
// against a naive sequential walk of the same tree, alternating in the
// same run. The metrics are medians over the iterations, so that a
// moment when other processes take the CPU does not count for the run.
func BenchmarkScan(b *testing.B) {
	dir, size := benchTree(b, 900, 30)
	res, err := Scan(dir, []string{"./..."})
	if err != nil || len(res.Dirs) != 30 || res.Files != 900 {
		b.Fatalf("scan: %v, %d dirs of %d files", err, len(res.Dirs), res.Files)
	}
	if _, err := naiveScan(dir); err != nil {
		b.Fatal(err)
	}
	// Each timed call starts after a collection, so that neither pays
	// for the garbage of the other (the naive walk allocates every file).
	var scan, naive []time.Duration
	for b.Loop() {
		runtime.GC()
		t0 := time.Now()
		if _, err := Scan(dir, []string{"./..."}); err != nil {
			b.Fatal(err)
		}
		scan = append(scan, time.Since(t0))
		runtime.GC()
		t1 := time.Now()
		if _, err := naiveScan(dir); err != nil {
			b.Fatal(err)
		}
		naive = append(naive, time.Since(t1))
	}
	ms, mn := median(scan), median(naive)
	b.ReportMetric(float64(size)/1e6, "MB")
	b.ReportMetric(ms.Seconds()*1e3, "scan-ms")
	b.ReportMetric(mn.Seconds()*1e3, "naive-ms")
	b.ReportMetric(ms.Seconds()/mn.Seconds(), "scan/naive")
}

// BenchmarkDescribe measures a whole -describe run over the 900-package
// tree against a bare go/packages load (NeedName|NeedTypes|NeedSyntax|
// NeedTypesInfo) of the same 30 packages, alternating in one run on a
// warm build cache.
func BenchmarkDescribe(b *testing.B) {
	dir, _ := benchTree(b, 900, 30)
	var patterns []string
	for i := range 30 {
		patterns = append(patterns, fmt.Sprintf("./svc%03d", i))
	}
	bare := func() {
		cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo, Dir: dir}
		pkgs, err := packages.Load(cfg, patterns...)
		if err != nil || len(pkgs) != 30 {
			b.Fatalf("bare load: %v (%d packages)", err, len(pkgs))
		}
	}
	describe := func() {
		if code := Run(&Options{Dir: dir, Describe: true, Stdout: io.Discard, Stderr: io.Discard}); code != 0 {
			b.Fatalf("describe: exit %d", code)
		}
	}
	// Warm the build cache and check the run finds the 300 tools.
	bare()
	res, err := Generate(dir, nil)
	if err != nil || len(res.Diagnostics) > 0 {
		b.Fatalf("generate: %v %v", err, res.Diagnostics)
	}
	if d := res.Describe(dir); len(d.Tools) != 300 {
		b.Fatalf("%d tools, want 300", len(d.Tools))
	}
	// Each timed call starts after a collection, so that neither pays
	// for the garbage of the other.
	var base, desc []time.Duration
	for b.Loop() {
		runtime.GC()
		t0 := time.Now()
		bare()
		base = append(base, time.Since(t0))
		runtime.GC()
		t1 := time.Now()
		describe()
		desc = append(desc, time.Since(t1))
	}
	mb, md := median(base), median(desc)
	b.ReportMetric(mb.Seconds()*1e3, "load-ms")
	b.ReportMetric(md.Seconds()*1e3, "describe-ms")
	b.ReportMetric(md.Seconds()/mb.Seconds(), "describe/load")
}

// BenchmarkDescribeColdCache measures -describe over the same tree with an
// empty build cache each time.
func BenchmarkDescribeColdCache(b *testing.B) {
	dir, _ := benchTree(b, 900, 30)
	old, had := os.LookupEnv("GOCACHE")
	b.Cleanup(func() {
		if had {
			os.Setenv("GOCACHE", old)
		} else {
			os.Unsetenv("GOCACHE")
		}
	})
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		os.Setenv("GOCACHE", b.TempDir())
		b.StartTimer()
		t0 := time.Now()
		if code := Run(&Options{Dir: dir, Describe: true, Stdout: io.Discard, Stderr: io.Discard}); code != 0 {
			b.Fatalf("describe: exit %d", code)
		}
		total += time.Since(t0)
	}
	b.ReportMetric(total.Seconds()*1e3/float64(b.N), "cold-describe-ms")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkInfer measures inference alone over the 30 loaded packages of
// the benchmark tree, on one processor against all of them, alternating
// in one run.
func BenchmarkInfer(b *testing.B) {
	dir, _ := benchTree(b, 900, 30)
	var dirs []string
	for i := range 30 {
		dirs = append(dirs, filepath.Join(dir, fmt.Sprintf("svc%03d", i)))
	}
	pkgs, err := Load(dir, dirs)
	if err != nil || len(pkgs) != 30 {
		b.Fatalf("load: %v (%d packages)", err, len(pkgs))
	}
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	run := func(n int) time.Duration {
		runtime.GOMAXPROCS(n)
		runtime.GC()
		t0 := time.Now()
		if model, diags := Infer(pkgs); len(model) != 30 || len(diags) > 0 {
			b.Fatalf("%d packages, %v", len(model), diags)
		}
		return time.Since(t0)
	}
	var one, all []time.Duration
	for b.Loop() {
		one = append(one, run(1))
		all = append(all, run(procs))
	}
	m1, ma := median(one), median(all)
	b.ReportMetric(m1.Seconds()*1e3, "one-proc-ms")
	b.ReportMetric(ma.Seconds()*1e3, "all-procs-ms")
	b.ReportMetric(ma.Seconds()/m1.Seconds(), "all/one")
}
