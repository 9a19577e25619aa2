package toolapp

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// testApp is a small application: a registry of two tools and two
// accounts, ada (who may read notes) and mallory (blocked).
type testApp struct {
	reg      *tool.Registry
	accounts *StaticAccounts
	opened   int // times open was called
	closed   int // times Close was called
	health   error
	started  chan struct{} // when set, receives a value as notes.slow starts
}

func newTestApp(t testing.TB) *testApp {
	t.Helper()
	a := new(testApp)
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.DiscardHandler)})
	err := reg.Add(
		&tool.Tool{
			ID: "notes.count", Label: "Count notes", Description: "Counts the notes.",
			Operation: tool.OpRead, Permission: "read notes",
			Outputs: []*tool.Definition{{Name: "count", Type: "integer", Required: true}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("", map[string]any{"count": 3}), nil
			},
		},
		&tool.Tool{
			ID: "notes.slow", Label: "Slow", Description: "Reports progress a few times, pausing between.",
			Operation: tool.OpRead, Access: func(context.Context, *tool.Values) (bool, error) { return true, nil },
			Inputs: []*tool.Definition{
				{Name: "steps", Type: "integer", Required: true},
				{Name: "pause_ms", Type: "integer", Required: true},
			},
			Outputs: []*tool.Definition{{Name: "steps", Type: "integer", Required: true}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				if a.started != nil {
					a.started <- struct{}{}
				}
				n := in.Int("steps")
				for i := range n {
					select {
					case <-ctx.Done():
						return nil, fmt.Errorf("cancelled after %d steps: %w", i, ctx.Err())
					case <-time.After(time.Duration(in.Int("pause_ms")) * time.Millisecond):
					}
					tool.Progress(ctx, float64(i+1), float64(n), "step")
				}
				return tool.Succeeded("", map[string]any{"steps": n}), nil
			},
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	a.reg = reg
	a.accounts = NewStaticAccounts(nil,
		&tool.User{ID: "ada", Permissions: []string{"read notes"}},
		&tool.User{ID: "mallory", IsBlocked: true})
	return a
}

func (a *testApp) open(context.Context) (*App, error) {
	a.opened++
	return &App{
		Registry: a.reg,
		Accounts: a.accounts,
		Health:   func(context.Context) error { return a.health },
		Close:    func() error { a.closed++; return nil },
	}, nil
}

// runApp runs the command line args of a and returns its exit status
// and what it wrote.
func runApp(t *testing.T, a *testApp, opts *Options, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	o := Options{Name: "notes"}
	if opts != nil {
		o = *opts
	}
	o.Stdin, o.Stdout, o.Stderr = strings.NewReader(""), &out, &errOut
	code = Run(t.Context(), a.open, args, &o)
	return code, out.String(), errOut.String()
}

func TestRunCommands(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string // a part of it
		stderr     string // a part of it
		opens      int
		noOpen     bool
		wantClosed bool
	}{
		{name: "help", args: []string{"help"}, stdout: "tool list|search|info|run|export", noOpen: true},
		{name: "no command", args: nil, code: 2, stderr: "Usage:", noOpen: true},
		{name: "unknown command", args: []string{"dance"}, code: 2, stderr: `unknown command "dance"`, noOpen: true},
		{name: "bad flag", args: []string{"serve", "--nope"}, code: 2, stderr: "flag provided but not defined: -nope", noOpen: true},
		{name: "tool run as ada", args: []string{"tool", "run", "notes.count", "--user", "ada", "--json"}, stdout: `"count": 3`},
		{name: "tool run anonymous", args: []string{"tool", "run", "notes.count", "--json"}, code: 1, stdout: `"error_type": "tool_not_found"`},
		{name: "tool run unknown user", args: []string{"tool", "run", "notes.count", "--user", "eve", "--json"}, code: 1, stdout: `"error_type": "user_not_found"`},
		{name: "tool run blocked user", args: []string{"tool", "run", "notes.count", "--user", "mallory", "--json"}, code: 1, stdout: `"error_type": "user_blocked"`},
		{name: "tool list as ada", args: []string{"tool", "list", "--user", "ada"}, stdout: "notes.count"},
		{name: "mcp unknown user", args: []string{"mcp", "--user", "eve"}, code: 1, stderr: `notes mcp: account "eve": unknown account`},
		{name: "mcp unknown group", args: []string{"mcp", "--groups", "admins", "--user", "ada"}, code: 1, stderr: `notes mcp: --groups: unknown tool group "admins": no tool declares a group`},
		{name: "mcp extra words", args: []string{"mcp", "now"}, code: 2, stderr: `unexpected arguments ["now"]`, noOpen: true},
		{name: "tokens unknown", args: []string{"tokens", "eve"}, code: 1, stderr: `no account is named "eve"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newTestApp(t)
			code, stdout, stderr := runApp(t, a, nil, tt.args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout %q does not contain %q", stdout, tt.stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.stderr)
			}
			wantOpens := 1
			if tt.noOpen {
				wantOpens = 0
			}
			if a.opened != wantOpens || a.closed != wantOpens {
				t.Errorf("opened %d and closed %d times, want %d", a.opened, a.closed, wantOpens)
			}
		})
	}
}

// The tokens command prints tokens that the store then accepts.
func TestTokensCommand(t *testing.T) {
	a := newTestApp(t)
	code, stdout, stderr := runApp(t, a, nil, "tokens")
	if code != 0 {
		t.Fatalf("tokens: exit %d; stderr:\n%s", code, stderr)
	}
	// The test's accounts are static: their tokens live in this process.
	if !strings.Contains(stderr, "hold only in this process") || !strings.Contains(stderr, `"notes serve --print-tokens"`) {
		t.Errorf("tokens of static accounts: stderr %q; want it to say they live only in this process", stderr)
	}
	got := map[string]string{}
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) == 2 && strings.HasPrefix(f[1], "tok_") {
			got[f[0]] = f[1]
		}
	}
	if len(got) != 2 {
		t.Fatalf("tokens printed for %v; want ada and mallory:\n%s", got, stdout)
	}
	for name, token := range got {
		acct, err := a.accounts.TokenAccount(context.Background(), token)
		if err != nil || acct.AccountID() != name {
			t.Errorf("%s's printed token names %v (%v)", name, acct, err)
		}
	}
}

// A command of the application's own takes its flags and the
// application's, before or after its name.
func TestOwnCommandAndFlags(t *testing.T) {
	a := newTestApp(t)
	var db string
	var limit int
	var gotArgs []string
	opts := &Options{
		Name:  "notes",
		Help:  "DB names the database.",
		Flags: func(fs *flag.FlagSet) { fs.StringVar(&db, "db", "notes.db", "the `DB`") },
		Commands: []*Command{{
			Name: "audit", Usage: "[--limit N] [WORD...]", Summary: "list the audit trail",
			Flags: func(fs *flag.FlagSet) { fs.IntVar(&limit, "limit", 10, "at most `N` entries") },
			Run: func(ctx context.Context, app *App, args []string, stdout io.Writer) error {
				gotArgs = args
				if app.Registry != a.reg {
					return errors.New("not the opened app")
				}
				if len(args) > 0 && args[0] == "fail" {
					return errors.New("it failed")
				}
				fmt.Fprintf(stdout, "db=%s limit=%d\n", db, limit)
				return nil
			},
		}},
	}
	for _, c := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"--db", "a.db", "audit", "--limit", "3", "x"}, 0, "db=a.db limit=3\n", ""},
		{[]string{"audit", "--db", "b.db"}, 0, "db=b.db limit=10\n", ""},
		{[]string{"audit", "fail"}, 1, "", "notes audit: it failed\n"},
		{[]string{"help"}, 0, "audit [--limit N] [WORD...]\n        list the audit trail\n", ""},
	} {
		db, limit = "notes.db", 10
		code, stdout, stderr := runApp(t, a, opts, c.args...)
		if code != c.code || !strings.Contains(stdout, c.stdout) || stderr != c.stderr {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, code, stdout, stderr, c.code, c.stdout, c.stderr)
		}
	}
	// A command named like a standard one replaces it, in the usage too.
	opts.Commands = append(opts.Commands, &Command{Name: "tokens", Summary: "tokens come from the identity provider",
		Run: func(ctx context.Context, app *App, args []string, stdout io.Writer) error {
			_, err := io.WriteString(stdout, "see the identity provider\n")
			return err
		}})
	if code, stdout, _ := runApp(t, a, opts, "tokens"); code != 0 || stdout != "see the identity provider\n" {
		t.Errorf("replaced tokens: exit %d, stdout %q", code, stdout)
	}
	if _, stdout, _ := runApp(t, a, opts, "help"); strings.Count(stdout, "\n  tokens") != 1 || !strings.Contains(stdout, "tokens come from") {
		t.Errorf("usage with tokens replaced:\n%s", stdout)
	}
	if len(gotArgs) != 1 || gotArgs[0] != "fail" {
		t.Errorf("the command's words = %q", gotArgs)
	}
	_, stdout, _ := runApp(t, a, opts, "help")
	if !strings.Contains(stdout, "notes [--db DB] COMMAND [ARGS]") || !strings.HasSuffix(stdout, "DB names the database.\n") {
		t.Errorf("usage:\n%s", stdout)
	}
}
