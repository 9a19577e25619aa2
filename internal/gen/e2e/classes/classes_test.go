package classes

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// TestEntityOfAnotherGoType runs gallery.show, whose input is the class
// of photo and video, with a reference of each type the registry knows:
// a photo or video reaches the method; an album, which the registry
// loads as another Go type, is an input error naming the types, not a
// zero Media reaching the method.
func TestEntityOfAnotherGoType(t *testing.T) {
	r := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	entityType := func(id string, load func(id string) any) *tool.EntityType {
		return &tool.EntityType{
			ID: id, Label: id,
			Load: func(_ context.Context, key string) (any, error) { return load(key), nil },
			Access: func(context.Context, tool.Account, any, string) (bool, error) {
				return true, nil
			},
			Describe: func(e any) (string, string, bool) { return "1", id, true },
		}
	}
	type album struct{ ID string }
	for _, et := range []*tool.EntityType{
		entityType("photo", func(id string) any { return &Media{ID: id, Kind: "photo", Title: "Dunes"} }),
		entityType("video", func(id string) any { return Media{ID: id, Kind: "video", Title: "Tides"} }),
		entityType("album", func(id string) any { return &album{ID: id} }),
	} {
		if err := r.AddEntityType(et); err != nil {
			t.Fatal(err)
		}
	}
	if err := RegisterTools(r, &Gallery{}); err != nil {
		t.Fatal(err)
	}
	if got := r.Describe("gallery.show").InputSchema.Properties["media"].Description; !strings.Contains(got, "such as photo:12") {
		t.Errorf("the input's description is %q, want it to give photo:12 as its example", got)
	}
	ctx := tool.WithAccount(context.Background(), &tool.User{ID: "u", Permissions: []string{"see media"}})
	for ref, want := range map[string]string{"photo:1": "photo: Dunes", "video:2": "video: Tides"} {
		res, err := r.RunJSON(ctx, "gallery.show", []byte(`{"media":"`+ref+`"}`))
		if err != nil || !res.Success || res.Outputs["result"] != want {
			t.Errorf("%s: %+v, %v; want the result %q", ref, res, err, want)
		}
	}
	res, err := r.RunJSON(ctx, "gallery.show", []byte(`{"media":"album:3"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Success || res.Failure != tool.FailureInput || !strings.Contains(fmt.Sprint(res.Message, res.Violations), "must be an entity of type photo or video, such as photo:12") {
		t.Errorf("album:3: %+v; want an input failure naming photo and video", res)
	}
}
