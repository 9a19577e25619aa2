package toolapp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/toolapi/toolapi/oauth"
)

// With App.OAuth, /mcp takes the issuer's access tokens instead of API
// tokens, and serve publishes the protected resource metadata.
func TestServeOAuth(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	issuer := httptest.NewServer(mux)
	defer issuer.Close()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": issuer.URL, "jwks_uri": issuer.URL + "/keys"})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k", Algorithm: "ES256", Use: "sig"}}})
	})

	a := newTestApp(t)
	apiToken, err := a.accounts.IssueToken(t.Context(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	// The resource is the server's own URL, known once it listens: its
	// handler is set after.
	app, _ := a.open(t.Context())
	front := httptest.NewServer(nil)
	defer front.Close()
	base := front.URL
	rs, err := oauth.New(&oauth.Options{
		Resource: base + "/mcp", Issuer: issuer.URL,
		Scopes: map[string][]string{"notes:read": {"read notes"}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	app.OAuth = rs
	front.Config.Handler = Handler(app, &Options{Name: "notes"})

	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k"))
	if err != nil {
		t.Fatal(err)
	}
	access, err := jwt.Signed(signer).Claims(map[string]any{
		"iss": issuer.URL, "sub": "ada", "aud": base + "/mcp", "scope": "notes:read",
		"exp": time.Now().Add(time.Hour).Unix(),
	}).Serialize()
	if err != nil {
		t.Fatal(err)
	}

	cs, err := connect(t, base, access, nil)
	if err != nil {
		t.Fatalf("connecting with the issuer's access token: %v", err)
	}
	defer cs.Close()
	if got := toolNames(t, cs); !slices.Contains(got, "notes__count") {
		t.Errorf("tools for the scope notes:read = %v, want notes__count among them", got)
	}
	if cs, err := connect(t, base, apiToken, nil); err == nil {
		cs.Close()
		t.Error("an API token connected to /mcp though the App takes OAuth access tokens")
	}

	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ch := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 && !strings.Contains(ch, `resource_metadata="`+rs.MetadataURL()+`"`) {
		t.Errorf("POST /mcp without a token: %d %q, want 401 naming the metadata", resp.StatusCode, ch)
	}
	resp, err = http.Get(rs.MetadataURL())
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if resp.StatusCode != 200 || meta.Resource != base+"/mcp" || !slices.Equal(meta.AuthorizationServers, []string{issuer.URL}) {
		t.Errorf("GET %s = %d %+v", rs.MetadataURL(), resp.StatusCode, meta)
	}
}
