package entity_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolapi/toolapi/entity"
	"github.com/toolapi/toolapi/tool"
)

type book struct {
	id    int
	title string
	owner string
}

type shelf map[int]*book

func (s shelf) load(_ context.Context, id string) (*book, error) {
	n, err := strconv.Atoi(id)
	if err != nil {
		return nil, entity.NotFound("book", id)
	}
	return s[n], nil // nil when missing: New reports it as not found
}

func newBooks(s shelf) *tool.EntityType {
	return entity.New(entity.Type[*book]{
		ID:    "book",
		Label: "Book",
		Load:  s.load,
		Access: func(_ context.Context, acct tool.Account, b *book, op string) (bool, error) {
			switch op {
			case entity.View:
				return true, nil
			case entity.Update:
				return b.owner == acct.AccountID(), nil
			}
			return false, nil
		},
		IDOf:    func(b *book) string { return strconv.Itoa(b.id) },
		LabelOf: func(b *book) string { return b.title },
		Search: func(_ context.Context, _ tool.Account, q string, limit int) ([]*book, error) {
			var out []*book
			for i := 1; i <= len(s) && len(out) < limit; i++ {
				if b := s[i]; b != nil && strings.Contains(strings.ToLower(b.title), strings.ToLower(q)) {
					out = append(out, b)
				}
			}
			return out, nil
		},
	})
}

var testShelf = shelf{
	1: {id: 1, title: "Kind of Blue", owner: "ann"},
	2: {id: 2, title: "Blue Train", owner: "bob"},
	3: {id: 3, title: "Giant Steps", owner: "ann"},
}

func TestLoad(t *testing.T) {
	et := newBooks(testShelf)
	ctx := context.Background()

	got, err := et.Load(ctx, "2")
	if err != nil {
		t.Fatalf("Load(2): %v", err)
	}
	if got != testShelf[2] {
		t.Errorf("Load(2) = %v, want book 2", got)
	}
	for _, id := range []string{"9", "abc", ""} {
		got, err := et.Load(ctx, id)
		if !errors.Is(err, tool.ErrEntityNotFound) || !entity.IsNotFound(err) {
			t.Errorf("Load(%q) error = %v, want one wrapping ErrEntityNotFound", id, err)
		}
		if got != nil {
			t.Errorf("Load(%q) = %#v, want an untyped nil", id, got)
		}
	}
}

func TestLoadError(t *testing.T) {
	boom := errors.New("disk on fire")
	et := entity.New(entity.Type[*book]{
		ID:     "book",
		Load:   func(context.Context, string) (*book, error) { return nil, boom },
		Access: func(context.Context, tool.Account, *book, string) (bool, error) { return true, nil },
		IDOf:   func(b *book) string { return strconv.Itoa(b.id) },
	})
	if _, err := et.Load(context.Background(), "1"); !errors.Is(err, boom) || entity.IsNotFound(err) {
		t.Errorf("Load error = %v, want the loader's own error", err)
	}
	if et.Label != "book" {
		t.Errorf("Label = %q, want the ID when none is given", et.Label)
	}
}

func TestAccess(t *testing.T) {
	et := newBooks(testShelf)
	ann := &tool.User{ID: "ann"}
	blockedAnn := &tool.User{ID: "ann", IsBlocked: true}
	tests := []struct {
		acct tool.Account
		book int
		op   string
		want bool
	}{
		{ann, 1, entity.View, true},
		{ann, 1, entity.Update, true},
		{ann, 2, entity.Update, false},
		{ann, 1, entity.Delete, false},
		{ann, 1, "rename", false},
		{blockedAnn, 1, entity.View, false},
		{blockedAnn, 1, entity.Update, false},
		{nil, 1, entity.View, false},
	}
	for _, tt := range tests {
		got, err := et.Access(context.Background(), tt.acct, testShelf[tt.book], tt.op)
		if err != nil {
			t.Errorf("Access(%v, book %d, %s): %v", tt.acct, tt.book, tt.op, err)
		}
		if got != tt.want {
			t.Errorf("Access(%v, book %d, %s) = %v, want %v", tt.acct, tt.book, tt.op, got, tt.want)
		}
	}
}

func TestAccessOtherType(t *testing.T) {
	et := newBooks(testShelf)
	ann := &tool.User{ID: "ann"}
	for _, v := range []any{"1", book{id: 1}, (*book)(nil), nil} {
		ok, err := et.Access(context.Background(), ann, v, entity.View)
		if ok || err == nil {
			t.Errorf("Access(%#v) = %v, %v; want denied with an error", v, ok, err)
		}
	}
}

func TestDescribe(t *testing.T) {
	et := newBooks(testShelf)
	id, label, ok := et.Describe(testShelf[3])
	if !ok || id != "3" || label != "Giant Steps" {
		t.Errorf("Describe(book 3) = %q, %q, %v", id, label, ok)
	}
	for _, v := range []any{book{id: 3}, "3", (*book)(nil), nil, 3} {
		if _, _, ok := et.Describe(v); ok {
			t.Errorf("Describe(%#v) ok = true, want false", v)
		}
	}
	ref, ok := entity.Ref(et, testShelf[1])
	want := tool.EntityRef{EntityType: "book", ID: "1", Label: "Kind of Blue"}
	if !ok || ref != want {
		t.Errorf("Ref(book 1) = %+v, %v; want %+v", ref, ok, want)
	}
	if _, ok := entity.Ref(et, "1"); ok {
		t.Error(`Ref("1") ok = true, want false`)
	}
}

func TestDescribeWithoutLabel(t *testing.T) {
	et := entity.New(entity.Type[*book]{
		ID:     "book",
		Load:   testShelf.load,
		Access: func(context.Context, tool.Account, *book, string) (bool, error) { return true, nil },
		IDOf:   func(b *book) string { return strconv.Itoa(b.id) },
	})
	if id, label, ok := et.Describe(testShelf[2]); !ok || id != "2" || label != "2" {
		t.Errorf("Describe = %q, %q, %v; want the ID as label", id, label, ok)
	}
	if et.Search != nil {
		t.Error("Search is set though the Type has none")
	}
}

func TestSearch(t *testing.T) {
	et := newBooks(testShelf)
	ctx := context.Background()
	got, err := et.Search(ctx, &tool.User{ID: "ann"}, "blue", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []tool.EntityRef{
		{EntityType: "book", ID: "1", Label: "Kind of Blue"},
		{EntityType: "book", ID: "2", Label: "Blue Train"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Search(blue) (-want +got):\n%s", diff)
	}
	got, err = et.Search(ctx, &tool.User{ID: "ann", IsBlocked: true}, "blue", 10)
	if err != nil || len(got) != 0 {
		t.Errorf("Search by a blocked account = %v, %v; want nothing", got, err)
	}
}

// A value type (not a pointer) works as well: the zero value is an entity
// like any other.
func TestValueType(t *testing.T) {
	type tag string
	et := entity.New(entity.Type[tag]{
		ID:     "tag",
		Load:   func(_ context.Context, id string) (tag, error) { return tag(id), nil },
		Access: func(context.Context, tool.Account, tag, string) (bool, error) { return true, nil },
		IDOf:   func(v tag) string { return string(v) },
	})
	v, err := et.Load(context.Background(), "jazz")
	if err != nil || v != tag("jazz") {
		t.Fatalf("Load(jazz) = %#v, %v", v, err)
	}
	if id, _, ok := et.Describe(tag("")); !ok || id != "" {
		t.Errorf("Describe(empty tag) = %q, %v; want an entity", id, ok)
	}
}

func TestNewPanicsWithoutRequiredFields(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New with no Load did not panic")
		}
	}()
	entity.New(entity.Type[*book]{ID: "book"})
}
