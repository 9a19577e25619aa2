package tool

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Registry holds tools and runs them. It is safe for concurrent use.
type Registry struct {
	logger *slog.Logger

	mu          sync.RWMutex
	entries     map[string]*entry // by ID
	byName      map[string]*entry // the same, by name (see NameOf)
	sorted      []*entry          // by ID; nil after a change (see snapshot)
	types       map[string]*DataType
	entityTypes map[string]*EntityType
	listeners   []func()
	middleware  []Middleware
	chain       atomic.Pointer[RunFunc] // the middleware around run; nil when there is none
	adjust      func(*Tool) (*Tool, error)
	mapError    func(error) error
	budget      Budget
	cursorKey   []byte
	overflows   *overflowStore
}

// Options configure a [Registry].
type Options struct {
	// Logger receives what is left out and what fails; nil: slog.Default().
	Logger *slog.Logger
	// Adjust, when set, gets a copy of each tool added and returns the tool
	// to add, or an error to leave it out (fix a re-typed input's Default).
	Adjust func(t *Tool) (*Tool, error)
	// MapError, when set, maps the application's errors to an [*InputError],
	// [*AccessError], [*RunError] or [ErrEntityNotFound], else returns nil.
	MapError func(err error) error
	// Budget is the budget of the tools that declare none, field by field
	// (see [Budget]). A zero Bytes means [DefaultBudgetBytes]; a zero
	// Items pages no tool that does not ask for it.
	Budget Budget
	// CursorKey signs the cursors of paged tools (see [Budget]); the
	// processes serving one endpoint must share it, or a cursor from one
	// is refused by another (as a request state signed by another MCP
	// server is). Give at least 32 random bytes; an application may give
	// the key that signs its MCP request states, since the signatures are
	// kept apart. Nil means a random key of this registry's own, so that
	// cursors do not outlive the process.
	CursorKey []byte
	// OverflowTTL is how long outputs over their byte budget are kept for
	// [Registry.ReadOverflow]. Zero means [DefaultOverflowTTL].
	OverflowTTL time.Duration
	// OverflowBytes bounds the bytes of outputs kept at once, in memory:
	// the oldest are forgotten first. Zero means [DefaultOverflowBytes].
	OverflowBytes int
}

// NewRegistry returns an empty registry. opts may be nil.
func NewRegistry(opts *Options) *Registry {
	r := &Registry{
		entries:     make(map[string]*entry),
		byName:      make(map[string]*entry),
		types:       make(map[string]*DataType),
		entityTypes: make(map[string]*EntityType),
	}
	if opts != nil && opts.Logger != nil {
		r.logger = opts.Logger
	} else {
		r.logger = slog.Default()
	}
	ttl, maxBytes := DefaultOverflowTTL, DefaultOverflowBytes
	if opts != nil {
		r.adjust = opts.Adjust
		r.mapError = opts.MapError
		r.budget = opts.Budget
		r.cursorKey = slices.Clone(opts.CursorKey)
		if opts.OverflowTTL > 0 {
			ttl = opts.OverflowTTL
		}
		if opts.OverflowBytes > 0 {
			maxBytes = opts.OverflowBytes
		}
	}
	if r.budget.Bytes <= 0 {
		r.budget.Bytes = DefaultBudgetBytes
	}
	r.budget.Items = max(r.budget.Items, 0)
	if len(r.cursorKey) == 0 {
		r.cursorKey = newCursorKey()
	}
	r.overflows = newOverflowStore(ttl, maxBytes)
	return r
}

// Logger returns the registry's logger.
func (r *Registry) Logger() *slog.Logger { return r.logger }

// Add adds tools, after the types they use. A tool with problems (an ID or
// [NameOf] taken, an unknown type) is left out; the error joins each
// [*DefinitionError]. A Tool must not change once added.
func (r *Registry) Add(tools ...*Tool) error {
	var errs []error
	added := false
	for _, t := range tools {
		if err := r.add(t); err != nil {
			id := "(nil)"
			if t != nil {
				id = t.ID
			}
			r.logger.Error("tool left out", "tool", id, "reason", err.Error())
			errs = append(errs, fmt.Errorf("tool %s: %w", id, err))
			continue
		}
		added = true
	}
	if added {
		r.changed()
	}
	return errors.Join(errs...)
}

func (r *Registry) add(t *Tool) error {
	if t == nil {
		return errors.New("nil tool")
	}
	if r.adjust != nil {
		adjusted, err := r.adjust(t.clone())
		if err != nil {
			return fmt.Errorf("adjusting it: %w", err)
		}
		if adjusted == nil || adjusted.ID != t.ID {
			return errors.New("Options.Adjust must return the tool with its ID unchanged")
		}
		t = adjusted
	}
	var errs definitionErrors
	if t.Handler == nil {
		errs.add("", "handler", "a tool needs a handler (is its service missing?)")
	}
	budget := r.budgetOf(t)
	if budget.Items > 0 && pageable(t) && t.Budget.Bytes >= 0 && t.Budget.Items >= 0 {
		t = withPaging(t)
	}
	e, err := compileTool(r, t)
	if e != nil {
		e.budget = budget
		e.paged = budget.Items > 0 && Paged(t)
	}
	e = e.withSchemas()
	if err != nil || len(errs) > 0 {
		return errors.Join(errs.err(), err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	name := NameOf(t.ID)
	if other := r.byName[name]; other != nil {
		nameTaken(t.ID, other.tool.ID, &errs)
		return errs.err()
	}
	r.entries[t.ID] = e
	r.byName[name] = e
	r.sorted = nil // rebuilt by the next List
	return nil
}

// Remove removes the tool with the given ID, reporting whether it was there.
func (r *Registry) Remove(id string) bool {
	r.mu.Lock()
	_, ok := r.entries[id]
	if ok {
		delete(r.entries, id)
		delete(r.byName, NameOf(id))
		r.sorted = nil
	}
	r.mu.Unlock()
	if ok {
		r.changed()
	}
	return ok
}

// OnChange registers f to be called after tools are added or removed.
func (r *Registry) OnChange(f func()) {
	r.mu.Lock()
	r.listeners = append(r.listeners, f)
	r.mu.Unlock()
}

func (r *Registry) changed() {
	r.mu.RLock()
	ls := slices.Clone(r.listeners)
	r.mu.RUnlock()
	for _, f := range ls {
		f()
	}
}

// AddEntityType adds an entity type; an ID already taken is an error.
func (r *Registry) AddEntityType(et *EntityType) error {
	if et == nil || et.ID == "" || et.Load == nil || et.Access == nil || et.Describe == nil {
		return errors.New("entity type needs an ID, Load, Access and Describe")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.entityTypes[et.ID]; ok {
		return fmt.Errorf("entity type %q is already added", et.ID)
	}
	r.entityTypes[et.ID] = et
	return nil
}

// EntityType returns the entity type with the given ID.
func (r *Registry) EntityType(id string) (*EntityType, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	et, ok := r.entityTypes[id]
	return et, ok
}

// Tool returns the tool with the given ID.
func (r *Registry) Tool(id string) (*Tool, bool) {
	e := r.entry(id)
	if e == nil {
		return nil, false
	}
	return e.tool, true
}

// entry returns the entry of the tool with the given ID, or nil.
func (r *Registry) entry(id string) *entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.entries[id]
}

// A Filter selects tools for [Registry.List].
type Filter struct {
	// Account, when set, keeps the tools whose permission it satisfies.
	Account Account
	// Operation, when set, keeps the tools of that operation.
	Operation Operation
	// Words keeps tools whose ID, label or description holds any (all when
	// MatchAll) of the words, in any case.
	Words    []string
	MatchAll bool
	// Narrowing, when set, keeps the tools it allows (see
	// [NarrowingFrom]).
	Narrowing *Narrowing
}

// List returns the tools f selects, ordered by ID. f may be nil.
func (r *Registry) List(f *Filter) []*Tool {
	all := r.snapshot()
	if f == nil {
		out := make([]*Tool, len(all))
		for i, e := range all {
			out[i] = e.tool
		}
		return out
	}
	words := make([]string, 0, len(f.Words))
	for _, w := range f.Words {
		if w = strings.ToLower(strings.TrimSpace(w)); w != "" {
			words = append(words, w)
		}
	}
	var out []*Tool
	for _, e := range all {
		if f.Operation != "" && e.tool.EffectiveOperation() != f.Operation {
			continue
		}
		if f.Account != nil && !e.permission.allows(f.Account) {
			continue
		}
		if !f.Narrowing.Allows(e.tool) {
			continue
		}
		if len(words) > 0 && !e.matches(words, f.MatchAll) {
			continue
		}
		out = append(out, e.tool)
	}
	return out
}

// snapshot returns the tools ordered by ID. The slice is built after each
// change and never written again, so callers may read it without the lock.
func (r *Registry) snapshot() []*entry {
	r.mu.RLock()
	all := r.sorted
	r.mu.RUnlock()
	if all != nil {
		return all
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sorted == nil {
		r.sorted = make([]*entry, 0, len(r.entries))
		for _, e := range r.entries {
			r.sorted = append(r.sorted, e)
		}
		slices.SortFunc(r.sorted, func(a, b *entry) int { return strings.Compare(a.tool.ID, b.tool.ID) })
	}
	return r.sorted
}

func (e *entry) matches(words []string, all bool) bool {
	text := e.searchText
	for _, w := range words {
		hit := strings.Contains(text, w)
		if all && !hit {
			return false
		}
		if !all && hit {
			return true
		}
	}
	return all
}

// Allowed reports whether acct has t's permission; an invalid permission
// allows no one.
func (t *Tool) Allowed(acct Account) bool {
	p, err := ParsePermission(t.Permission)
	return err == nil && p.allows(acct)
}
