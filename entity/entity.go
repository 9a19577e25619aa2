// Package entity builds the [tool.EntityType] values a [tool.Registry] uses
// to load, check and describe entities, from typed Go functions.
//
// An application describes each entity type once, with its own Go type:
//
//	albums := entity.New(entity.Type[*Album]{
//		ID:      "album",
//		Label:   "Album",
//		Load:    store.Album, // func(ctx, id string) (*Album, error)
//		Access:  albumAccess, // func(ctx, acct, *Album, op string) (bool, error)
//		IDOf:    func(a *Album) string { return strconv.FormatInt(a.ID, 10) },
//		LabelOf: func(a *Album) string { return a.Title },
//	})
//	if err := reg.AddEntityType(albums); err != nil {
//		return err
//	}
//
// The returned type asserts every value to the Go type once, at its edge,
// so the functions above never see a value of another type. It denies every
// operation to a blocked account before Access is asked, and it reports a
// loader's nil result as [tool.ErrEntityNotFound].
package entity

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/toolapi/toolapi/tool"
)

// The operations most entity types answer. An entity type may answer others
// too: an operation is any name its Access function understands.
const (
	View   = "view"
	Update = "update"
	Delete = "delete"
)

// A Type describes the entities of one type held as Go values of type T,
// usually a pointer to a struct.
type Type[T any] struct {
	// ID names the entity type ("album"). Required.
	ID string
	// Label is the type's human name ("Album"); empty means ID.
	Label string
	// Load returns the entity with the given ID. It returns an error
	// wrapping [tool.ErrEntityNotFound] (see [NotFound]) when there is none;
	// a nil result with a nil error means the same. An ID that cannot name
	// an entity of this type, such as "abc" where IDs are numbers, is not
	// found either. Required.
	Load func(ctx context.Context, id string) (T, error)
	// Access reports whether acct may perform op ("view", "update", ...)
	// on e. It is never asked for a blocked account, which may do nothing.
	// An unknown op should be denied. Required.
	Access func(ctx context.Context, acct tool.Account, e T, op string) (bool, error)
	// IDOf returns the ID of e, as Load takes it. Required.
	IDOf func(e T) string
	// LabelOf returns the human name of e ("Blue Train"); nil means the ID.
	LabelOf func(e T) string
	// Search, when set, returns up to limit entities whose label matches
	// query and which acct may view. Entity pickers use it.
	Search func(ctx context.Context, acct tool.Account, query string, limit int) ([]T, error)
}

// New returns the [tool.EntityType] that t describes, ready for
// [tool.Registry.AddEntityType]. It panics if t lacks ID, Load, Access or
// IDOf, as that is a programming error found at start-up.
func New[T any](t Type[T]) *tool.EntityType {
	if t.ID == "" || t.Load == nil || t.Access == nil || t.IDOf == nil {
		panic("entity.New: Type needs ID, Load, Access and IDOf")
	}
	label := t.Label
	if label == "" {
		label = t.ID
	}
	isNil := nilCheck[T]()
	describe := func(v any) (T, string, string, bool) {
		e, ok := v.(T)
		if !ok || isNil(e) {
			return e, "", "", false
		}
		id := t.IDOf(e)
		name := id
		if t.LabelOf != nil {
			name = t.LabelOf(e)
		}
		return e, id, name, true
	}
	et := &tool.EntityType{
		ID:    t.ID,
		Label: label,
		Load: func(ctx context.Context, id string) (any, error) {
			e, err := t.Load(ctx, id)
			if err != nil {
				return nil, err
			}
			if isNil(e) {
				return nil, NotFound(t.ID, id)
			}
			return e, nil
		},
		Access: func(ctx context.Context, acct tool.Account, v any, op string) (bool, error) {
			if acct == nil || acct.Blocked() {
				return false, nil
			}
			e, ok := v.(T)
			if !ok || isNil(e) {
				return false, fmt.Errorf("entity type %s: access asked for a %T", t.ID, v)
			}
			return t.Access(ctx, acct, e, op)
		},
		Describe: func(v any) (string, string, bool) {
			_, id, name, ok := describe(v)
			return id, name, ok
		},
	}
	if t.Search != nil {
		et.Search = func(ctx context.Context, acct tool.Account, query string, limit int) ([]tool.EntityRef, error) {
			if acct == nil || acct.Blocked() {
				return nil, nil
			}
			found, err := t.Search(ctx, acct, query, limit)
			if err != nil {
				return nil, err
			}
			refs := make([]tool.EntityRef, 0, len(found))
			for _, e := range found {
				if _, id, name, ok := describe(e); ok {
					refs = append(refs, tool.EntityRef{EntityType: t.ID, ID: id, Label: name})
				}
			}
			return refs, nil
		}
	}
	return et
}

// NotFound returns an error wrapping [tool.ErrEntityNotFound] for the
// entity of type typeID with the given ID, for Load functions to return.
func NotFound(typeID, id string) error {
	return &notFoundError{typeID: typeID, id: id}
}

type notFoundError struct{ typeID, id string }

func (e *notFoundError) Error() string {
	return fmt.Sprintf("%s %q: %v", e.typeID, e.id, tool.ErrEntityNotFound)
}

func (e *notFoundError) Unwrap() error { return tool.ErrEntityNotFound }

// IsNotFound reports whether err says an entity does not exist.
func IsNotFound(err error) bool { return errors.Is(err, tool.ErrEntityNotFound) }

// Ref returns how v is published, as et describes it; ok is false when v is
// not an entity of et.
func Ref(et *tool.EntityType, v any) (ref tool.EntityRef, ok bool) {
	id, label, ok := et.Describe(v)
	if !ok {
		return tool.EntityRef{}, false
	}
	return tool.EntityRef{EntityType: et.ID, ID: id, Label: label}, true
}

// nilCheck returns a function reporting whether a T is nil, decided once
// for T: a typed nil pointer inside an interface is not == nil, but it is no
// entity either. Pointers and interfaces, the usual entity types, compare
// without reflection.
func nilCheck[T any]() func(T) bool {
	var zero T
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Pointer, reflect.Chan, reflect.UnsafePointer:
		z := any(zero)
		return func(e T) bool { return any(e) == z }
	case reflect.Interface:
		return func(e T) bool { return any(e) == nil }
	case reflect.Map, reflect.Slice, reflect.Func:
		return func(e T) bool { return reflect.ValueOf(&e).Elem().IsNil() }
	}
	return func(T) bool { return false }
}
