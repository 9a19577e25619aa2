package secrets_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolapi/toolapi/secrets"
	"github.com/toolapi/toolapi/tool"
)

var login = &tool.Tool{ID: "bank.link", Label: "Link bank", Inputs: []*tool.Definition{
	{Name: "user", Type: "string", Required: true},
	{Name: "password", Label: "Password", Type: "string", Required: true, Sensitive: true},
}}

func TestDeskAnswerOnce(t *testing.T) {
	d := secrets.New("https://photos.example.com/", nil)
	ada, bob := &tool.User{ID: "ada"}, &tool.User{ID: "bob"}
	missing := login.Inputs[1:]
	r, err := d.Open(tool.WithAccount(context.Background(), ada), login, missing, "k1")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.URL(r); got != "https://photos.example.com/secrets/"+r.ID || len(r.ID) < 22 {
		t.Fatalf("URL %q", got)
	}
	again, err := d.Open(tool.WithAccount(context.Background(), ada), login, missing, "k1")
	if err != nil || again != r {
		t.Fatalf("the same call opened another request: %v", err)
	}
	if _, ok := d.Take(r); ok {
		t.Fatal("Take gave values nobody entered")
	}
	// Another account neither sees nor answers it.
	if _, err := d.Get(bob, r.ID); !errors.Is(err, secrets.ErrNotFound) {
		t.Fatalf("bob's Get: %v, want ErrNotFound", err)
	}
	if err := d.Answer(bob, r.ID, map[string]string{"password": "x"}); !errors.Is(err, secrets.ErrNotFound) {
		t.Fatalf("bob's Answer: %v, want ErrNotFound", err)
	}
	var bad *secrets.BadValueError
	if err := d.Answer(ada, r.ID, map[string]string{"password": "  "}); !errors.As(err, &bad) || bad.Input != "password" {
		t.Fatalf("blank value: %v, want a BadValueError for password", err)
	}
	if err := d.Answer(ada, r.ID, map[string]string{"password": strings.Repeat("x", secrets.MaxValue+1)}); !errors.As(err, &bad) {
		t.Fatalf("long value: %v, want a BadValueError", err)
	}
	done := make(chan map[string]string)
	go func() {
		v, err := d.Wait(context.Background(), r)
		if err != nil {
			t.Error(err)
		}
		done <- v
	}()
	if err := d.Answer(ada, r.ID, map[string]string{"password": "hunter2", "user": "ignored"}); err != nil {
		t.Fatal(err)
	}
	if v := <-done; len(v) != 1 || v["password"] != "hunter2" {
		t.Fatalf("Wait gave %v", v)
	}
	// Answered and taken: gone for good.
	if err := d.Answer(ada, r.ID, map[string]string{"password": "again"}); !errors.Is(err, secrets.ErrNotFound) {
		t.Fatalf("second Answer: %v, want ErrNotFound", err)
	}
	if _, err := d.Get(ada, r.ID); !errors.Is(err, secrets.ErrNotFound) {
		t.Fatalf("Get after use: %v", err)
	}
	if d.Len() != 0 {
		t.Fatalf("the desk holds %d requests, want 0", d.Len())
	}
}

func TestDeskLimits(t *testing.T) {
	d := secrets.New("http://127.0.0.1:8080", &secrets.Options{MaxPerAccount: 2, MaxOpen: 3, TTL: 50 * time.Millisecond})
	ada, bob := &tool.User{ID: "ada"}, &tool.User{ID: "bob"}
	missing := login.Inputs[1:]
	for _, k := range []string{"a", "b"} {
		if _, err := d.Open(tool.WithAccount(context.Background(), ada), login, missing, k); err != nil {
			t.Fatal(err)
		}
	}
	_, err := d.Open(tool.WithAccount(context.Background(), ada), login, missing, "c")
	var re *tool.RunError
	if !errors.Is(err, secrets.ErrTooMany) || !errors.As(err, &re) || re.Message == "" {
		t.Fatalf("third request of ada: %v, want ErrTooMany as a RunError", err)
	}
	r, err := d.Open(tool.WithAccount(context.Background(), bob), login, missing, "d")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Open(tool.WithAccount(context.Background(), bob), login, missing, "e"); !errors.Is(err, secrets.ErrTooMany) {
		t.Fatalf("fourth request of the desk: %v, want ErrTooMany", err)
	}
	// Expiry: Wait ends, and the requests make room again.
	if _, err := d.Wait(context.Background(), r); !errors.Is(err, secrets.ErrExpired) {
		t.Fatalf("Wait on an expiring request: %v, want ErrExpired", err)
	}
	time.Sleep(time.Second + 60*time.Millisecond) // the sweep runs at most once a second
	if _, err := d.Open(tool.WithAccount(context.Background(), ada), login, missing, "f"); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	if err := d.Answer(bob, r.ID, map[string]string{"password": "late"}); !errors.Is(err, secrets.ErrNotFound) {
		t.Fatalf("answer after expiry: %v, want ErrNotFound", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r2, _ := d.Open(tool.WithAccount(context.Background(), bob), login, missing, "g")
	if _, err := d.Wait(ctx, r2); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with a cancelled context: %v", err)
	}
}

// TestDeskRefusals: the shared anonymous account is not collected for; a
// value that breaks the input's length is refused on the page; a
// cancelled request takes nothing; an expired one is forgotten by itself.
func TestDeskRefusals(t *testing.T) {
	d := secrets.New("http://127.0.0.1:8080", &secrets.Options{TTL: 100 * time.Millisecond})
	ctx := context.Background()
	missing := login.Inputs[1:]
	_, err := d.Open(tool.WithAccount(ctx, tool.Anonymous), login, missing, "anon")
	var ie *tool.InputError
	if !errors.As(err, &ie) || ie.Input != "password" {
		t.Fatalf("the anonymous account's request: %v, want an InputError naming password", err)
	}
	short := &tool.Tool{ID: "album.protect", Inputs: []*tool.Definition{{Name: "passphrase", Type: "string", Required: true, Sensitive: true,
		Constraints: tool.Constraints{Length: &tool.Bounds{Min: tool.Ptr(8), Max: tool.Ptr(128)}}}}}
	ada := &tool.User{ID: "ada"}
	r, err := d.Open(tool.WithAccount(ctx, ada), short, short.Inputs, "p")
	if err != nil {
		t.Fatal(err)
	}
	var bad *secrets.BadValueError
	if err := d.Answer(ada, r.ID, map[string]string{"passphrase": "short"}); !errors.As(err, &bad) || bad.Reason != "must be at least 8 characters" {
		t.Fatalf("a short passphrase: %v", err)
	}
	d.Cancel(r)
	if err := d.Answer(ada, r.ID, map[string]string{"passphrase": "long enough"}); !errors.Is(err, secrets.ErrNotFound) {
		t.Fatalf("answering a cancelled request: %v, want ErrNotFound", err)
	}
	r2, err := d.Open(tool.WithAccount(ctx, ada), short, short.Inputs, "p2")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Answer(ada, r2.ID, map[string]string{"passphrase": "long enough"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for d.Len() != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if d.Len() != 0 {
		t.Fatalf("an expired request with its value is still held (%d)", d.Len())
	}
	if _, ok := d.Take(r2); ok {
		t.Fatal("an expired request's value was taken")
	}
}
