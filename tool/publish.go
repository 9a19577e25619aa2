package tool

import (
	"encoding/base64"
	"time"
)

// publish turns a value a tool returned into its wire form (string,
// int64, float64, bool, nil, []any, map[string]any) by n, checking it as
// it goes. Problems are the developer's, not the caller's: they are logged
// and fail the run.
func (n *node) publish(pub *publisher, v any, p *pathSeg, vs *violations) any {
	if v == nil || isNilPointer(v) {
		if n.def.Nullable {
			return nil
		}
		vs.add(p, rule(RuleNotNull))
		return nil
	}
	switch n.kind {
	case kAny:
		return v
	case kList:
		return n.publishList(pub, v, p, vs)
	case kMap:
		return n.publishMap(pub, v, p, vs)
	case kEntity:
		return n.publishEntity(pub, v, p, vs)
	case kDateTime, kTimestamp:
		if t, ok := v.(time.Time); ok {
			if n.def.Constraints.DateOnly && n.kind == kDateTime {
				return t.UTC().Format("2006-01-02")
			}
			return t.UTC().Format(time.RFC3339Nano)
		}
	case kDuration:
		if d, ok := v.(time.Duration); ok {
			if d < 0 || d%time.Second != 0 {
				// The wire form (an ISO 8601 duration in whole units, as
				// JSON Schema's format) has no sign and no fraction.
				vs.add(p, rule(RuleWholeSeconds))
				return nil
			}
			return formatDuration(d)
		}
	case kString, kEmail, kURI:
		switch x := v.(type) {
		case []byte:
			v = base64.StdEncoding.EncodeToString(x)
		case Text:
			v = string(x)
		}
	}
	out, ok := n.decodeScalar(v, p, vs)
	if !ok {
		return nil
	}
	n.check(out, p, vs)
	switch x := out.(type) {
	case time.Time, time.Duration:
		return v // the string it came as
	default:
		return x
	}
}

func isNilPointer(v any) bool {
	switch x := v.(type) {
	case *Resource:
		return x == nil
	case *EntityRef:
		return x == nil
	case []any:
		return false
	}
	return false
}

func (n *node) publishList(pub *publisher, v any, p *pathSeg, vs *violations) any {
	var in []any
	switch x := v.(type) {
	case []any:
		in = x
	case []string:
		in = toAnySlice(x)
	case []int:
		in = toAnySlice(x)
	case []int64:
		in = toAnySlice(x)
	case []float64:
		in = toAnySlice(x)
	case []bool:
		in = toAnySlice(x)
	case []time.Time:
		in = toAnySlice(x)
	case []map[string]any:
		in = toAnySlice(x)
	case []Object:
		in = toAnySlice(x)
	case []EntityRef:
		in = toAnySlice(x)
	default:
		vs.add(p, Violation{Rule: RuleType, Detail: "list"})
		return nil
	}
	n.checkCount(len(in), RuleMinItems, RuleMaxItems, p, vs)
	out := make([]any, len(in))
	for i, item := range in {
		ip := p.item(i)
		out[i] = n.items.publish(pub, item, &ip, vs)
	}
	return out
}

func toAnySlice[T any](s []T) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func (n *node) publishMap(pub *publisher, v any, p *pathSeg, vs *violations) any {
	var in map[string]any
	switch x := v.(type) {
	case Object:
		if n.props != nil {
			return n.publishObject(pub, x, p, vs)
		}
		in = x
	case map[string]any:
		in = x
	case map[string]string:
		in = make(map[string]any, len(x))
		for k, s := range x {
			in[k] = s
		}
	case Resource:
		in = x.toMap()
	case *Resource:
		in = x.toMap()
	default:
		vs.add(p, Violation{Rule: RuleType, Detail: "map"})
		return nil
	}
	n.checkCount(len(in), RuleMinProperties, RuleMaxProperties, p, vs)
	if n.props == nil {
		out := make(map[string]any, len(in))
		for k, x := range in {
			if n.values == nil {
				out[k] = x
				continue
			}
			kp := pathSeg{parent: p, name: k, key: true}
			out[k] = n.values.publish(pub, x, &kp, vs)
		}
		return out
	}
	out := make(map[string]any, len(n.props))
	n.publishProps(pub, in, out, p, vs)
	return out
}

// publishObject publishes a map with properties that the handler built
// for this run, rewriting it in place.
func (n *node) publishObject(pub *publisher, in Object, p *pathSeg, vs *violations) any {
	n.checkCount(len(in), RuleMinProperties, RuleMaxProperties, p, vs)
	for k := range in {
		if _, ok := n.propIndex[k]; !ok {
			delete(in, k)
		}
	}
	n.publishProps(pub, in, in, p, vs)
	return map[string]any(in)
}

// publishProps publishes the declared properties of in into out (which
// may be in itself): a missing required one is a violation, an optional
// one that is nil and not nullable is left out.
func (n *node) publishProps(pub *publisher, in, out map[string]any, p *pathSeg, vs *violations) {
	for _, pn := range n.props {
		name := pn.def.Name
		x, present := in[name]
		pp := p.prop(name)
		if leftOut(pn.def, x, present) {
			if pn.def.Required {
				vs.add(&pp, rule(RuleRequired))
			}
			delete(out, name)
			continue
		}
		out[name] = pn.publish(pub, x, &pp, vs)
	}
}

// leftOut reports whether an output or property is absent from what is
// published: not present, or nil where null is no value and the key is
// optional.
func leftOut(d *Definition, x any, present bool) bool {
	return !present || ((x == nil || isNilPointer(x)) && !d.Nullable && !d.Required)
}

func (n *node) publishEntity(pub *publisher, v any, p *pathSeg, vs *violations) any {
	var ref EntityRef
	switch x := v.(type) {
	case EntityRef:
		ref = x
	case *EntityRef:
		ref = *x
	default:
		found := false
		r := pub.r
		if n.et != nil {
			ref.ID, ref.Label, found = n.et.Describe(v)
			ref.EntityType = n.et.ID
		} else if r != nil {
			r.mu.RLock()
			if n.entityType != "" {
				if et := r.entityTypes[n.entityType]; et != nil {
					ref.ID, ref.Label, found = et.Describe(v)
					ref.EntityType = et.ID
				}
			} else {
				for _, et := range r.entityTypes {
					if ref.ID, ref.Label, found = et.Describe(v); found {
						ref.EntityType = et.ID
						break
					}
				}
			}
			r.mu.RUnlock()
		}
		if !found {
			vs.add(p, rule(RuleEntityType))
			return nil
		}
	}
	if n.entityType != "" && ref.EntityType != n.entityType {
		vs.add(p, Violation{Rule: RuleEntityType, Detail: n.entityType})
		return nil
	}
	// One published reference per entity and run: a list of a thousand
	// images of three albums publishes three maps.
	if m, ok := pub.refs[ref]; ok {
		return m
	}
	m := map[string]any{"entity_type": ref.EntityType, "id": ref.ID, "label": ref.Label}
	if pub.refs == nil {
		pub.refs = make(map[EntityRef]map[string]any)
	}
	pub.refs[ref] = m
	return m
}

// A publisher carries what publishing one run's outputs shares.
type publisher struct {
	r    *Registry
	refs map[EntityRef]map[string]any
}
