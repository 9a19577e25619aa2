package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runAlbum runs the album command line args on the database dsn, as
// `album --db DSN ARGS...` does, and returns its exit status and output.
func runAlbum(t *testing.T, dsn string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	code = run(t.Context(), append([]string{"--db", dsn}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestAuditCommand checks, on both databases, that the album audits the
// runs of its command line: a write run and a refused run made with
// `album tool run` are listed by `album audit --format json` with their
// outcome and failure category, and no input's value is in the trail.
func TestAuditCommand(t *testing.T) {
	eachDSN(t, func(t *testing.T, dsn string) {
		const title = "Unlisted title q7Zx"
		if code, out, errOut := runAlbum(t, dsn, "tool", "run", "album.add_track", "--user", "editor",
			"--input", "album=1", "--input", "title="+title, "--json", "--yes"); code != 0 {
			t.Fatalf("add_track: exit %d\n%s%s", code, out, errOut)
		}
		if code, out, errOut := runAlbum(t, dsn, "tool", "run", "album.publish", "--input", "album=4",
			"--user", "editor", "--json", "--yes"); code != 1 || !strings.Contains(out, "access_denied") {
			t.Fatalf("publishing another's draft: exit %d\n%s%s", code, out, errOut)
		}
		// A read run that succeeds is not audited.
		if code, out, errOut := runAlbum(t, dsn, "tool", "run", "album.search", "--input", "word=rain", "--json"); code != 0 {
			t.Fatalf("search: exit %d\n%s%s", code, out, errOut)
		}

		code, out, errOut := runAlbum(t, dsn, "audit", "--format", "json")
		if code != 0 {
			t.Fatalf("album audit: exit %d\n%s", code, errOut)
		}
		if strings.Contains(out, title) {
			t.Errorf("the audit trail holds an input's value:\n%s", out)
		}
		var listed struct {
			Runs []struct {
				Account, Tool, Operation, Outcome, Failure string
				InputsSHA256                               string `json:"inputs_sha256"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(out), &listed); err != nil {
			t.Fatalf("album audit --format json: %v\n%s", err, out)
		}
		type run struct{ Account, Tool, Operation, Outcome, Failure string }
		var got []run
		for _, r := range listed.Runs {
			got = append(got, run{r.Account, r.Tool, r.Operation, r.Outcome, r.Failure})
			if len(r.InputsSHA256) != 64 {
				t.Errorf("%s: inputs_sha256 = %q, want a SHA-256", r.Tool, r.InputsSHA256)
			}
		}
		want := []run{ // newest first
			{"editor", "album.publish", "write", "failure", "access"},
			{"editor", "album.add_track", "write", "success", ""},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("album audit (-want +got):\n%s", diff)
		}

		code, out, _ = runAlbum(t, dsn, "audit", "--tool", "album.add_track")
		if code != 0 || !strings.Contains(out, "album.add_track") || strings.Contains(out, "album.publish") {
			t.Errorf("album audit --tool album.add_track: exit %d\n%s", code, out)
		}
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--limit", "0"}, "must be a whole number between 1 and 10000"},
			{[]string{"--format", "xml"}, `must be table or json, not "xml"`},
		} {
			code, _, errOut := runAlbum(t, dsn, append([]string{"audit"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("album audit %v: exit %d, %s; want exit 2 and %q", tc.args, code, errOut, tc.want)
			}
		}
	})
}

// TestDSNPasswordNeverPrinted runs the album on PostgreSQL URLs that
// cannot connect and checks that their passwords appear in neither output.
func TestDSNPasswordNeverPrinted(t *testing.T) {
	for _, dsn := range []string{
		"postgres://127.0.0.1:1/album?user=album&password=s3cret&connect_timeout=2",
		"postgres://album:s3cret@127.0.0.1:1/album?connect_timeout=2",
		"postgresql://127.0.0.1:1/album?sslpassword=s3cret&connect_timeout=2",
	} {
		for _, args := range [][]string{{"tool", "list"}, {"audit"}, {"tokens"}} {
			code, out, errOut := runAlbum(t, dsn, args...)
			if code != 1 || !strings.Contains(errOut, "opening postgres") {
				t.Errorf("album --db %s %v: exit %d, stderr %q; want exit 1 and the failure to open", maskDSN(dsn), args, code, errOut)
			}
			if strings.Contains(out+errOut, "s3cret") {
				t.Errorf("album --db %s %v prints the password:\n%s%s", maskDSN(dsn), args, out, errOut)
			}
		}
	}
}

// TestHugeSearchWord checks that a search word beyond its bound is an
// input violation that names the input and the bound, and that no text of
// the database reaches the caller.
func TestHugeSearchWord(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		app, _ := newTestApp(t, s)
		res := runAs(t, app, "editor", "album.search", map[string]any{"word": strings.Repeat("a", 60_000)})
		if res.Success || res.Failure != "input" || len(res.Violations) != 1 {
			t.Fatalf("a 60,000-character word: %+v", res)
		}
		v := res.Violations[0]
		if v.Path != "word" || !strings.Contains(v.Message, "200") {
			t.Errorf("violation = %+v, want one of word naming its bound 200", v)
		}
		for _, leak := range []string{"LIKE", "GLOB", "SQL", "sqlite", "pattern too complex", "pgx"} {
			if strings.Contains(res.Message+v.Message, leak) {
				t.Errorf("the failure mentions %q: %s / %s", leak, res.Message, v.Message)
			}
		}
	})
}
