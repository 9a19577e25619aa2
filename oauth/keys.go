package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// A keySet caches the issuer's signing keys. They are fetched when first
// needed; once KeysMaxAge old they are fetched again in the background
// while the old ones stay in use; and a token naming a key not in the set
// fetches them at once, at most every KeysMinInterval (the issuer may have
// rotated its keys). While fetches fail, the keys fetched last stay in use.
type keySet struct {
	rs *ResourceServer

	fetching sync.Mutex // held by the one fetch running

	mu         sync.Mutex
	set        *jose.JSONWebKeySet
	fetched    time.Time // when set was fetched
	tried      time.Time // when a fetch was last started
	refreshing bool      // a background fetch is running
}

// key returns the public key with the given ID (the only one of its
// algorithm when the token names none).
func (k *keySet) key(ctx context.Context, kid string, alg string) (*jose.JSONWebKey, error) {
	k.mu.Lock()
	now := k.rs.now()
	if key := k.find(kid, alg); key != nil {
		if now.Sub(k.fetched) >= k.rs.opts.KeysMaxAge && !k.refreshing && now.Sub(k.tried) >= k.rs.opts.KeysMinInterval {
			k.refreshing = true
			k.tried = now
			go k.refresh(context.WithoutCancel(ctx))
		}
		k.mu.Unlock()
		return key, nil
	}
	first := k.set == nil
	if !first && now.Sub(k.tried) < k.rs.opts.KeysMinInterval {
		k.mu.Unlock()
		return nil, fmt.Errorf("%w: no key %q", ErrSignature, kid)
	}
	k.tried = now
	k.mu.Unlock()

	err := k.fetch(ctx)
	k.mu.Lock()
	defer k.mu.Unlock()
	if err != nil {
		if k.set == nil {
			return nil, fmt.Errorf("%w: %w", ErrKeysUnusable, err)
		}
		k.rs.logf("the issuer's keys cannot be fetched; the keys fetched before stay in use: %v", err)
	}
	if key := k.find(kid, alg); key != nil {
		return key, nil
	}
	return nil, fmt.Errorf("%w: no key %q", ErrSignature, kid)
}

// refresh fetches the keys in the background.
func (k *keySet) refresh(ctx context.Context) {
	err := k.fetch(ctx)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.refreshing = false
	if err != nil {
		k.rs.logf("the issuer's keys cannot be fetched; the keys fetched before stay in use: %v", err)
	}
}

// find returns the key of the set with the given ID that signs with alg,
// or nil. k.mu is held.
func (k *keySet) find(kid, alg string) *jose.JSONWebKey {
	if k.set == nil {
		return nil
	}
	var match *jose.JSONWebKey
	for i := range k.set.Keys {
		key := &k.set.Keys[i]
		if key.Use != "" && key.Use != "sig" || key.Algorithm != "" && key.Algorithm != alg || !key.IsPublic() {
			continue
		}
		if kid != "" && key.KeyID == kid {
			return key
		}
		if kid == "" {
			if match != nil {
				return nil // ambiguous
			}
			match = key
		}
	}
	if kid != "" {
		return nil
	}
	return match
}

// fetch reads the key set anew, one fetch at a time.
func (k *keySet) fetch(ctx context.Context) error {
	k.fetching.Lock()
	defer k.fetching.Unlock()
	u := k.rs.opts.JWKSURL
	if u == "" {
		meta, err := k.rs.issuerMetadata(ctx)
		if err != nil {
			return err
		}
		if meta.JWKSURI == "" {
			return fmt.Errorf("the issuer's metadata names no jwks_uri")
		}
		u = meta.JWKSURI
	}
	var set jose.JSONWebKeySet
	if err := getJSON(ctx, k.rs.opts.HTTPClient, u, &set); err != nil {
		return err
	}
	if len(set.Keys) > maxKeys {
		return fmt.Errorf("the key set at %s holds %d keys, more than %d", u, len(set.Keys), maxKeys)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.set = &set
	k.fetched = k.rs.now()
	return nil
}

// issuerMeta is what the server reads of its issuer's metadata.
type issuerMeta struct {
	Issuer                string `json:"issuer"`
	JWKSURI               string `json:"jwks_uri"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
}

// issuerMetadata returns the issuer's metadata, read once for the key set
// and the introspection endpoint both. A read that fails is tried again at
// most every KeysMinInterval; meanwhile its error is returned.
func (rs *ResourceServer) issuerMetadata(ctx context.Context) (*issuerMeta, error) {
	rs.metaMu.Lock()
	defer rs.metaMu.Unlock()
	if rs.meta != nil {
		return rs.meta, nil
	}
	now := rs.now()
	if rs.metaErr != nil && now.Sub(rs.metaTried) < rs.opts.KeysMinInterval {
		return nil, rs.metaErr
	}
	rs.metaTried = now
	rs.meta, rs.metaErr = rs.discover(ctx)
	return rs.meta, rs.metaErr
}

// discover reads the issuer's metadata: its OpenID configuration, else
// its OAuth authorization server metadata (RFC 8414).
func (rs *ResourceServer) discover(ctx context.Context) (*issuerMeta, error) {
	iss := strings.TrimSuffix(rs.opts.Issuer, "/")
	var errs []error
	for _, path := range []string{"/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"} {
		var meta issuerMeta
		if err := getJSON(ctx, rs.opts.HTTPClient, iss+path, &meta); err != nil {
			errs = append(errs, err)
			continue
		}
		if strings.TrimSuffix(meta.Issuer, "/") != iss {
			errs = append(errs, fmt.Errorf("%s%s: the metadata names issuer %q", iss, path, meta.Issuer))
			continue
		}
		return &meta, nil
	}
	return nil, errors.Join(errs...)
}

// getJSON reads the JSON document at u into v.
func getJSON(ctx context.Context, client *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxDocBytes+1))
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if len(b) > maxDocBytes {
		return fmt.Errorf("GET %s: more than %d bytes", u, maxDocBytes)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}
