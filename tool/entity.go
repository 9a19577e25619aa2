package tool

import (
	"context"
	"errors"
)

// An EntityType tells a [Registry] how to load the entities of one type,
// check what an account may do with them and describe them. The entity
// package builds these for typed Go values.
type EntityType struct {
	// ID names the type ("album"); entity inputs of data type "entity:ID"
	// take this type's bare IDs, inputs of type "entity" take "ID:id".
	ID string
	// Label is the type's human name ("Album").
	Label string
	// Load returns the entity with the given ID, or an error wrapping
	// [ErrEntityNotFound].
	Load func(ctx context.Context, id string) (any, error)
	// Access reports whether acct may perform op ("view", "update",
	// "delete", ...) on entity.
	Access func(ctx context.Context, acct Account, entity any, op string) (bool, error)
	// Describe returns the ID and label of entity; ok is false when entity
	// is not of this type.
	Describe func(entity any) (id, label string, ok bool)
	// Search, when set, lists up to limit entities whose label matches
	// query that acct may view; entity pickers use it.
	Search func(ctx context.Context, acct Account, query string, limit int) ([]EntityRef, error)
}

// An EntityRef is how an entity is published: its type, ID and label.
type EntityRef struct {
	EntityType string `json:"entity_type"`
	ID         string `json:"id"`
	Label      string `json:"label"`
}

// ErrEntityNotFound is wrapped by [EntityType.Load] when no entity has the
// requested ID.
var ErrEntityNotFound = errors.New("entity not found")
