package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
)

// Run runs the tool id for the account in ctx with arguments (JSON values
// or [Text]) by input name. Every outcome but an unknown id ([ErrNotFound])
// is a Result.
func (r *Registry) Run(ctx context.Context, id string, args map[string]any) (*Result, error) {
	e := reachable(ctx, r.entry(id))
	if e == nil {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return r.start(ctx, e, arguments{tree: args}), nil
}

// RunJSON is [Registry.Run] with arguments as a JSON object, null or empty.
func (r *Registry) RunJSON(ctx context.Context, id string, args []byte) (*Result, error) {
	e := reachable(ctx, r.entry(id))
	if e == nil {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return r.start(ctx, e, arguments{doc: args, isDoc: true}), nil
}

// arguments are a run's arguments as a caller sent them: a tree of Go
// values (Run) or a JSON document (RunJSON).
type arguments struct {
	tree  map[string]any
	doc   []byte
	isDoc bool
}

// decode decodes and validates args by e's inputs.
func (r *Registry) decode(ctx context.Context, e *entry, args arguments) (*Values, []Violation) {
	var vs violations
	in := r.decodeInto(ctx, e, args, &vs)
	return in, sortedViolations(e, &vs)
}

// decodeInto decodes and validates args by e's inputs, adding the
// violations to vs. It returns nil when the arguments are no object.
func (r *Registry) decodeInto(ctx context.Context, e *entry, args arguments, vs *violations) *Values {
	if !args.isDoc {
		return r.decodeInputsInto(ctx, e, args.tree, vs)
	}
	if e.tool.Refiner != nil {
		// Refiners need every value at once: decode the tree.
		m, docVs := decodeArgs(args.doc)
		if docVs != nil {
			vs.list = append(vs.list, docVs...)
			return nil
		}
		return r.decodeInputsInto(ctx, e, m, vs)
	}
	return decodeJSONInputsInto(e, args.doc, vs)
}

// start runs e through the registry's middleware, if any, and the run
// path.
func (r *Registry) start(ctx context.Context, e *entry, args arguments) *Result {
	chain := r.chain.Load()
	if chain == nil {
		return r.run(ctx, e, args, nil)
	}
	return r.through(ctx, *chain, &Call{Tool: e.tool, Account: AccountFrom(ctx), e: e, args: args})
}

// through passes c through the middleware chain, which ends in the run
// path (see [Registry.path]).
func (r *Registry) through(ctx context.Context, chain RunFunc, c *Call) (res *Result) {
	defer func() {
		if v := recover(); v != nil {
			res = r.runtimeFailure(c.Tool, "middleware panicked", fmt.Errorf("panic: %v\n%s", v, debug.Stack()))
		}
	}()
	res = chain(ctx, c)
	if res == nil {
		return r.runtimeFailure(c.Tool, "middleware returned no result", errors.New("nil result"))
	}
	return res
}

// run is the one path every run takes. A panic anywhere in it (a
// handler, an access method, a refiner, an entity type, a data type
// check) is logged and fails the run. c, when middleware wraps the run,
// receives the decoded inputs.
func (r *Registry) run(ctx context.Context, e *entry, args arguments, c *Call) (res *Result) {
	t := e.tool
	defer func() {
		if v := recover(); v != nil {
			res = r.runtimeFailure(t, "tool panicked", fmt.Errorf("panic: %v\n%s", v, debug.Stack()))
		}
	}()
	acct := AccountFrom(ctx)
	if acct.Blocked() {
		return accessFailure("The account " + acct.AccountID() + " is blocked and may run no tool.")
	}
	if !e.permission.allows(acct) {
		return accessFailure("You may not run " + t.label() + ": it needs the permission " + quotePermission(e.permission) + ".")
	}
	in, vs := r.decode(ctx, e, args)
	if missing := secretsAskedFor(e, vs); missing != nil && in != nil {
		// Nobody is asked for a secret for a call that would be refused:
		// the entities and the access method are checked first, on the
		// other inputs (and again once the secret is in).
		if res := r.access(ctx, e, acct, in); res != nil {
			return res
		}
		var res *Result
		var asked bool
		if args, res, asked = r.askSecrets(ctx, e, args, missing); res != nil {
			return res
		}
		if asked {
			in, vs = r.decode(ctx, e, args)
		}
	}
	if len(vs) > 0 {
		return inputFailure(t, vs)
	}
	offset := 0
	if cursor := in.String(CursorInput); cursor != "" && e.paged {
		var ok bool
		if offset, ok = r.openCursor(acct, e, in, cursor); !ok {
			return inputFailure(t, []Violation{newViolation(Violation{Path: CursorInput, Rule: RuleCursorInvalid})})
		}
	}
	if c != nil {
		c.Inputs = in
		if c.Decoded != nil {
			if res := c.Decoded(ctx, c); res != nil {
				return res
			}
		}
	}
	if res := r.access(ctx, e, acct, in); res != nil {
		return res
	}
	reason, ask, err := t.NeedsConfirming(ctx, in)
	if err != nil {
		return r.failure(ctx, e, nil, err, "confirmation check failed")
	}
	switch {
	case t.Approver != "" && (ask || !t.MayConfirm()):
		if _, ok := ApprovalFrom(ctx); !ok {
			return accessFailure(t.label() + " runs only once an account with the permission " + quotePermission(e.approver) +
				" approves it: start it as a task, which waits for the approval.")
		}
	case ask:
		c, _ := ctx.Value(confirmerKey{}).(Confirmer)
		if c == nil {
			return accessFailure(t.label() + " runs only when a person confirms it, and this caller cannot ask for confirmation.")
		}
		ok, err := c.Confirm(WithConfirmReason(ctx, reason), t, WithReason(confirmQuestion(t, in), reason))
		if err != nil {
			return r.runtimeFailure(t, "confirmation failed", err)
		}
		if !ok {
			return accessFailure(t.label() + " was not confirmed, so it did not run.")
		}
	}
	if r.mapError != nil {
		ctx = context.WithValue(ctx, registryKey{}, r)
	}
	res, err = r.call(ctx, t, in)
	if err != nil {
		return r.budgeted(ctx, e, acct, in, offset, r.failure(ctx, e, res, err, "tool failed"))
	}
	return r.budgeted(ctx, e, acct, in, offset, r.finish(e, res))
}

// access loads the entities of in, checking the declared op on each for
// acct, and asks e's access method: it returns the failure that ends the
// run, or nil.
func (r *Registry) access(ctx context.Context, e *entry, acct Account, in *Values) *Result {
	var loadVs violations
	if res := r.loadEntities(ctx, e, acct, in, false, &loadVs); res != nil {
		return res
	}
	if !loadVs.empty() {
		return inputFailure(e.tool, loadVs.result())
	}
	if e.tool.Access != nil {
		ok, err := e.tool.Access(ctx, in)
		if err != nil {
			return r.failure(ctx, e, nil, err, "access check failed")
		}
		if !ok {
			return accessFailure("You may not run " + e.tool.label() + " with these inputs.")
		}
	}
	return nil
}

// failure returns the failed Result of err, returned by the
// application's code (mapped by [Options.MapError]) with res, the
// handler's Result beside it (nil elsewhere); what says where err came
// from, for the log.
func (r *Registry) failure(ctx context.Context, e *entry, res *Result, err error, what string) *Result {
	t := e.tool
	err = r.mapErr(err)
	var ie *InputError
	if errors.As(err, &ie) {
		return inputFailure(t, []Violation{{Path: ie.Input, Rule: RuleHandler, Message: ie.Message}})
	}
	if res := refusal(t, err); res != nil {
		return res
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return &Result{Message: t.label() + " was cancelled.", Failure: FailureRuntime}
	}
	var re *RunError
	if !errors.As(err, &re) {
		return r.runtimeFailure(t, what, err)
	}
	r.logger.Error(what, "tool", t.ID, "error", err.Error())
	msg := re.Message
	if msg == "" {
		msg = t.label() + " failed."
	}
	out := &Result{Message: msg, Failure: FailureRuntime}
	if re.Partial && res != nil {
		out.Outputs = res.Outputs
	}
	return r.finish(e, out)
}

// mapErr returns err as [Options.MapError] maps it.
func (r *Registry) mapErr(err error) error {
	if r.mapError == nil || err == nil {
		return err
	}
	if m := r.mapError(err); m != nil {
		return m
	}
	return err
}

type registryKey struct{}

// FailedPartway reports whether err, mapped by [Options.MapError], is a
// partial [*RunError].
func FailedPartway(ctx context.Context, err error) bool {
	if r, ok := ctx.Value(registryKey{}).(*Registry); ok {
		err = r.mapErr(err)
	}
	var re *RunError
	return errors.As(err, &re) && re.Partial
}

// confirmQuestion returns the question a [Confirmer] asks about a run of
// t with in: the inputs the caller set, as canonical JSON with the
// sensitive ones left out.
func confirmQuestion(t *Tool, in *Values) string {
	what := t.label() + " (" + t.ID + ")"
	b, err := json.Marshal(in.canonical(true))
	if err != nil || string(b) == "{}" {
		return "Run " + what + "?"
	}
	return "Run " + what + " with " + string(b) + "?"
}

// call calls the handler, turning a panic into an error.
func (r *Registry) call(ctx context.Context, t *Tool, in *Values) (res *Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v\n%s", v, debug.Stack())
		}
	}()
	return t.Handler(ctx, in)
}

// finish publishes and checks the outputs of a handler's result.
func (r *Registry) finish(e *entry, res *Result) *Result {
	t := e.tool
	if res == nil {
		res = &Result{Success: true}
	}
	out := &Result{Success: res.Success, Message: res.Message}
	if !res.Success {
		out.Failure = res.Failure
		if out.Failure == "" || out.Failure == FailureInput && len(res.Violations) == 0 {
			out.Failure = FailureRuntime
		}
		out.Violations = res.Violations
		if out.Message == "" {
			out.Message = t.label() + " failed."
		}
	} else if out.Message == "" {
		out.Message = t.label() + " completed."
	}
	for name := range res.Outputs {
		if !t.hasOutput(name) {
			if _, logged := e.dropped.LoadOrStore(name, true); !logged {
				r.logger.Warn("undeclared output dropped", "tool", t.ID, "output", name)
			}
		}
	}
	if len(e.outputs) == 0 {
		return out
	}
	var vs violations
	pub := &publisher{r: r}
	outputs := make(map[string]any, len(e.outputs))
	for _, n := range e.outputs {
		name := n.def.Name
		v, present := res.Outputs[name]
		seg := pathSeg{name: name}
		if leftOut(n.def, v, present) {
			if n.def.Required && res.Success {
				vs.add(&seg, rule(RuleRequired))
			}
			continue
		}
		outputs[name] = n.publish(pub, v, &seg, &vs)
	}
	if !vs.empty() {
		r.logger.Error("tool returned invalid outputs", "tool", t.ID, "violations", joinViolations(vs.result()))
		return &Result{Message: t.label() + " failed.", Failure: FailureRuntime, Internal: true}
	}
	out.Outputs = outputs
	return out
}

func (t *Tool) hasOutput(name string) bool {
	for _, d := range t.Outputs {
		if d.Name == name {
			return true
		}
	}
	return false
}

func (t *Tool) label() string {
	if t.Label != "" {
		return t.Label
	}
	return t.ID
}

func quotePermission(p Permission) string {
	q := make([]string, len(p.Names))
	for i, n := range p.Names {
		q[i] = "\"" + n + "\""
	}
	if p.Any {
		return strings.Join(q, " or ")
	}
	return strings.Join(q, " and ")
}

// refusal returns the access failure of err when it is (or wraps) an
// *AccessError, else nil.
func refusal(t *Tool, err error) *Result {
	var ae *AccessError
	if err == nil || !errors.As(err, &ae) {
		return nil
	}
	return accessFailure("You may not run " + t.label() + ": " + sentence(ae.Reason))
}

// sentence returns s ending with a full stop (or its own ! or ?).
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

func accessFailure(msg string) *Result {
	return &Result{Message: msg, Failure: FailureAccess}
}

func inputFailure(t *Tool, vs []Violation) *Result {
	return &Result{
		Message:    "Invalid input for " + t.label() + ": " + strings.ReplaceAll(joinViolations(vs), "\n", "; "),
		Failure:    FailureInput,
		Violations: vs,
	}
}

func (r *Registry) runtimeFailure(t *Tool, what string, err error) *Result {
	r.logger.Error(what, "tool", t.ID, "error", err.Error())
	return &Result{Message: t.label() + " failed.", Failure: FailureRuntime, Internal: true}
}

// loadEntities replaces entity references by loaded entities, each
// distinct entity of a list loaded once, adding a violation to vs for each
// that does not exist. A run (check false) checks the declared op on each
// for acct; a check checks none. It returns the failure that ends the run
// at once (a refusal, or a load or access check that failed, logged), or
// nil.
func (r *Registry) loadEntities(ctx context.Context, e *entry, acct Account, in *Values, check bool, vs *violations) *Result {
	t := e.tool
	for i, n := range e.inputs {
		op := entityOp(n)
		if op == "" || in.values[i] == nil {
			continue
		}
		l := entityLoader{r: r, e: e, t: t, acct: acct, op: op, check: check, sensitive: n.def.Sensitive}
		seg := pathSeg{name: n.def.Name}
		switch v := in.values[i].(type) {
		case entityRef:
			in.keepRef(i, v)
			ent, res := l.load(ctx, v, &seg, vs)
			if res != nil {
				return res
			}
			in.values[i] = ent
		case []any:
			in.keepRef(i, v)
			v = slices.Clone(v) // never load into what the caller or a default holds
			in.values[i] = v
			loaded := make(map[entityRef]any, len(v))
			for j, item := range v {
				ref, ok := item.(entityRef)
				if !ok {
					if check || !vs.empty() {
						continue // the item's own violation says why
					}
					return r.runtimeFailure(t, "entity load failed", fmt.Errorf("input %s: item %d is %T, not an entity reference", n.def.Name, j, item))
				}
				is := seg.item(j)
				ent, seen := loaded[ref]
				if !seen {
					var res *Result
					if ent, res = l.load(ctx, ref, &is, vs); res != nil {
						return res
					}
					loaded[ref] = ent
				} else if ent == nil {
					l.notFound(ref, &is, vs)
				}
				v[j] = ent
			}
		}
	}
	return nil
}

// An entityLoader loads the entities of one input and checks its op on
// them.
type entityLoader struct {
	r         *Registry
	e         *entry
	t         *Tool
	acct      Account
	op        string
	check     bool // only checking the inputs: the op is not checked
	sensitive bool // the input is sensitive: messages do not quote it
}

// load loads the entity ref refers to and, unless only checking, checks
// the op on it. A missing entity adds a violation and gives nil; a refusal
// or an error gives a failure.
func (l *entityLoader) load(ctx context.Context, ref entityRef, p *pathSeg, vs *violations) (any, *Result) {
	et, ok := l.r.EntityType(ref.typ)
	if !ok {
		l.notFound(ref, p, vs)
		return nil, nil
	}
	e, err := et.Load(ctx, ref.id)
	if err != nil {
		if err = l.r.mapErr(err); errors.Is(err, ErrEntityNotFound) {
			l.notFound(ref, p, vs)
			return nil, nil
		}
		return nil, l.r.failure(ctx, l.e, nil, err, "entity load failed")
	}
	if l.check {
		return e, nil
	}
	ok, err = et.Access(ctx, l.acct, e, l.op)
	if err != nil {
		return nil, l.r.failure(ctx, l.e, nil, err, "entity access check failed")
	}
	if !ok {
		what := typeName(et) + " " + ref.id
		if l.sensitive {
			what = "this " + typeName(et)
		}
		return nil, accessFailure("You may not " + l.op + " " + what + " (input " + p.String() + ").")
	}
	return e, nil
}

// notFound adds the violation of a reference to no entity.
func (l *entityLoader) notFound(ref entityRef, p *pathSeg, vs *violations) {
	et, ok := l.r.EntityType(ref.typ)
	switch {
	case !ok && l.sensitive:
		vs.add(p, rule(RuleEntityType))
	case !ok:
		vs.add(p, Violation{Rule: RuleEntityType, Value: ref.typ})
	case l.sensitive:
		vs.add(p, Violation{Rule: RuleEntityNotFound, Detail: typeName(et)})
	default:
		vs.add(p, Violation{Rule: RuleEntityNotFound, Detail: typeName(et), Value: ref.id})
	}
}

func typeName(et *EntityType) string {
	if et.Label != "" {
		return strings.ToLower(et.Label)
	}
	return et.ID
}
