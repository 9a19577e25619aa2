package explorer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// TestCurlCopyRuns runs a tool page's curl copy, as shown, with the real
// curl and bash against an MCP endpoint with sessions and one without: the
// tool runs and its result comes back.
func TestCurlCopyRuns(t *testing.T) {
	testenv.NeedFull(t)
	for _, bin := range []string{"curl", "bash", "sed"} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is needed: %v", bin, err)
			}
			t.Skipf("%s is missing", bin)
		}
	}
	env := newTestEnv(t, nil)
	var ran int
	err := env.reg.Add(&tool.Tool{
		ID: "demo.shout", Label: "Shout", Description: "Shouts a word.", Operation: tool.OpRead, Permission: "use demo",
		Inputs:  []*tool.Definition{{Name: "word", Type: "string", Required: true}},
		Outputs: []*tool.Definition{{Name: "loud", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			ran++
			return tool.Succeeded("", map[string]any{"loud": strings.ToUpper(in.String("word")) + "!"}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	alice := &tool.User{ID: "alice", Permissions: []string{"use demo"}}
	tl, _ := env.reg.Tool("demo.shout")
	for _, stateless := range []bool{false, true} {
		srv := mcpserver.New(env.reg, &mcpserver.Options{
			Stateless: stateless,
			Authenticate: func(r *http.Request) (tool.Account, error) {
				if r.Header.Get("Authorization") != "Bearer tok-alice" {
					return nil, &mcpserver.AuthError{Status: http.StatusUnauthorized}
				}
				return alice, nil
			},
		})
		ts := httptest.NewServer(srv.Handler())
		page := httptest.NewRequest("GET", ts.URL+"/tools/demo.shout", nil)
		page.Host = strings.TrimPrefix(ts.URL, "http://")
		c := env.exp.copies(page, alice, tl, map[string]any{"word": tool.Text("hey")})
		if c == nil {
			t.Fatal("no copies")
		}
		cmd := exec.Command("bash", "-c", c.Curl)
		cmd.Env = append(os.Environ(), "TOKEN=tok-alice")
		out, err := cmd.CombinedOutput()
		ts.Close()
		if err != nil || !strings.Contains(string(out), `HEY!`) || strings.Contains(string(out), `"error"`) {
			t.Errorf("stateless %v: the curl copy gave %v:\n%s\nscript:\n%s", stateless, err, out, c.Curl)
		}
	}
	if ran != 2 {
		t.Errorf("the tool ran %d times, want 2", ran)
	}
}
