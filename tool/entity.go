package tool

import (
	"context"
	"errors"
)

// An EntityType tells a [Registry] how to load, check and describe the
// entities of one type.
type EntityType struct {
	// ID names the type ("album"), as in "entity:album" and "album:12".
	ID string
	// Label is the type's human name ("Album").
	Label string
	// Load returns the entity with the given ID ([ErrEntityNotFound]).
	Load func(ctx context.Context, id string) (any, error)
	// Access reports whether acct may perform op ("view", ...) on entity.
	Access func(ctx context.Context, acct Account, entity any, op string) (bool, error)
	// Describe returns entity's ID and label; not ok when not of this type.
	Describe func(entity any) (id, label string, ok bool)
	// Search, if set, lists up to limit entities acct may view matching query.
	Search func(ctx context.Context, acct Account, query string, limit int) ([]EntityRef, error)
}

// An EntityRef is how an entity is published: its type, ID and label.
type EntityRef struct {
	EntityType string `json:"entity_type"`
	ID         string `json:"id"`
	Label      string `json:"label"`
}

// ErrEntityNotFound is wrapped by [EntityType.Load] for an unknown ID.
var ErrEntityNotFound = errors.New("entity not found")
