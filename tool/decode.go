package tool

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
)

// entityRef is an entity input before it is loaded.
type entityRef struct {
	typ, id string
}

// decodeInputs decodes and validates args by the tool's (refined) inputs.
func (r *Registry) decodeInputs(ctx context.Context, e *entry, args map[string]any) (*Values, []Violation) {
	var vs violations
	in := r.decodeInputsInto(ctx, e, args, &vs)
	return in, sortedViolations(e, &vs)
}

// decodeInputsInto decodes and validates args by the tool's (refined)
// inputs, adding the violations to vs.
func (r *Registry) decodeInputsInto(ctx context.Context, e *entry, args map[string]any, vs *violations) *Values {
	t := e.tool
	in := newValues(e)
	for i, n := range e.inputs {
		if e.refined[n.def.Name] {
			continue
		}
		decodeInput(n, i, args, in, vs)
	}
	if len(args) > 0 {
		var extra extraNames
		for k := range args {
			if i, ok := e.inputIndex[k]; !ok || t.Inputs[i].Locked {
				extra.add(k)
			}
		}
		extra.report(e, vs)
	}
	if e.refined != nil {
		known := in.byName()
		for i, n := range e.inputs {
			if !e.refined[n.def.Name] {
				continue
			}
			rn, err := r.refine(ctx, t, n, known)
			if err != nil {
				seg := pathSeg{name: n.def.Name}
				vs.add(&seg, rule(RuleUnavailable))
				r.logger.Error("refiner failed", "tool", t.ID, "input", n.def.Name, "error", err.Error())
				continue
			}
			decodeInput(rn, i, args, in, vs)
		}
	}
	return in
}

func decodeInput(n *node, i int, args map[string]any, in *Values, vs *violations) {
	d := n.def
	if d.Locked {
		in.values[i] = n.deflt
		return
	}
	raw, present := args[d.Name]
	if !present || raw == nil {
		decodeAbsent(n, i, present, in, vs)
		return
	}
	seg := pathSeg{name: d.Name}
	in.values[i] = n.decode(raw, &seg, vs)
	in.set[i] = true
}

// decodeAbsent gives input i its value when it is absent, or null
// (present): the default, or a violation when it is required or NotNull.
func decodeAbsent(n *node, i int, present bool, in *Values, vs *violations) {
	d := n.def
	switch {
	case d.Locked:
		in.values[i] = cloneDefault(n.deflt)
	case d.Required:
		seg := pathSeg{name: d.Name}
		vs.add(&seg, rule(RuleRequired))
	case present && d.Constraints.NotNull:
		seg := pathSeg{name: d.Name}
		vs.add(&seg, rule(RuleNotNull))
	default:
		in.values[i] = cloneDefault(n.deflt)
	}
}

// cloneDefault returns a copy of a list or map default, so that no run
// sees what another run (or its entity loading) did to it.
func cloneDefault(v any) any {
	switch x := v.(type) {
	case []any:
		c := make([]any, len(x))
		for i, item := range x {
			c[i] = cloneDefault(item)
		}
		return c
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, item := range x {
			c[k] = cloneDefault(item)
		}
		return c
	}
	return v
}

// plainJSON returns v with every json.Number made a float64: values of
// type any, and of maps without definitions, reach handlers as the
// encoding/json types.
func plainJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return v
		}
		return f
	case []any:
		for i, item := range x {
			x[i] = plainJSON(item)
		}
	case map[string]any:
		for k, item := range x {
			x[k] = plainJSON(item)
		}
	}
	return v
}

// decode decodes raw (a JSON value, a Go value of a JSON-like type, or
// Text) by n, checks n's constraints and returns the value in its Go form
// (see [Values]). Null is the caller's concern unless n is nullable.
func (n *node) decode(raw any, p *pathSeg, vs *violations) any {
	if raw == nil {
		if n.def.Nullable {
			return nil
		}
		vs.add(p, rule(RuleNotNull))
		return nil
	}
	switch n.kind {
	case kList:
		return n.decodeList(raw, p, vs)
	case kMap:
		return n.decodeMap(raw, p, vs)
	case kAny:
		if t, ok := raw.(Text); ok {
			return string(t)
		}
		return plainJSON(raw)
	}
	v, ok := n.decodeScalar(raw, p, vs)
	if !ok {
		return nil
	}
	n.check(v, p, vs)
	return v
}

// decodeScalar converts a scalar; it reports false (and adds a violation)
// when raw is not of n's type.
func (n *node) decodeScalar(raw any, p *pathSeg, vs *violations) (any, bool) {
	var v any
	var problem Violation
	switch n.kind {
	case kString, kEmail, kURI:
		v, problem = n.decodeString(raw)
	case kInteger:
		v, problem = decodeInteger(raw)
	case kFloat:
		v, problem = decodeFloat(raw)
	case kBoolean:
		v, problem = decodeBoolean(raw)
	case kDateTime, kTimestamp:
		v, problem = n.decodeTime(raw)
	case kDuration:
		v, problem = decodeDuration(raw)
	case kEntity:
		v, problem = n.decodeEntityRef(raw)
	default:
		problem = rule(RuleType)
	}
	if problem.Rule != "" {
		vs.add(p, problem)
		return nil, false
	}
	return v, true
}

// The decoders of scalars below return the value, or the violation of raw
// (with no rule when there is none).

func (n *node) decodeString(raw any) (any, Violation) {
	var s string
	switch x := raw.(type) {
	case string:
		s = x
	case Text:
		s = string(x)
	default:
		return nil, Violation{Rule: RuleType, Detail: "string"}
	}
	switch {
	case n.kind == kEmail && !validEmail(s):
		return nil, Violation{Rule: RuleFormat, Detail: "email"}
	case n.kind == kURI && !validURI(s):
		return nil, Violation{Rule: RuleFormat, Detail: "uri"}
	}
	if _, ok := raw.(string); ok {
		return raw, Violation{} // already boxed: no new allocation
	}
	return s, Violation{}
}

func decodeInteger(raw any) (any, Violation) {
	if text, isText := raw.(Text); isText {
		i, err := strconv.ParseInt(strings.TrimSpace(string(text)), 10, 64)
		if err != nil {
			return nil, Violation{Rule: RuleType, Detail: "integer"}
		}
		return i, Violation{}
	}
	if _, ok := raw.(int64); ok {
		return raw, Violation{} // already boxed
	}
	i, ok := toInt(raw)
	if !ok {
		if f, isNum := toFloat(raw); isNum && f == math.Trunc(f) {
			return nil, Violation{Rule: RuleType, Detail: "int64"}
		}
		return nil, Violation{Rule: RuleType, Detail: "integer"}
	}
	return i, Violation{}
}

func decodeFloat(raw any) (any, Violation) {
	if text, isText := raw.(Text); isText {
		f, err := strconv.ParseFloat(strings.TrimSpace(string(text)), 64)
		if err != nil || !finite(f) {
			return nil, Violation{Rule: RuleType, Detail: "number"}
		}
		return f, Violation{}
	}
	f, ok := toFloat(raw)
	if !ok {
		return nil, Violation{Rule: RuleType, Detail: "number"}
	}
	if _, ok := raw.(float64); ok {
		return raw, Violation{}
	}
	return f, Violation{}
}

func decodeBoolean(raw any) (any, Violation) {
	if text, isText := raw.(Text); isText {
		switch strings.ToLower(strings.TrimSpace(string(text))) {
		case "true", "1", "yes", "on":
			return true, Violation{}
		case "false", "0", "no", "off", "":
			return false, Violation{}
		}
		return nil, Violation{Rule: RuleType, Detail: "boolean"}
	}
	b, ok := raw.(bool)
	if !ok {
		return nil, Violation{Rule: RuleType, Detail: "boolean"}
	}
	return b, Violation{}
}

// localLayouts are the local forms people type for a time (an HTML
// datetime-local field, a date alone), read as UTC.
var localLayouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02 15:04:05", "2006-01-02"}

func (n *node) decodeTime(raw any) (any, Violation) {
	dateOnly := n.def.Constraints.DateOnly && n.kind == kDateTime
	if x, ok := raw.(time.Time); ok {
		if n.def.Constraints.DateOnly {
			y, m, d := x.Date()
			return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), Violation{}
		}
		return x.UTC(), Violation{}
	}
	s, isText, ok := stringOf(raw)
	switch {
	case !ok:
	case dateOnly:
		if t, ok := parseDate(s); ok {
			return t, Violation{}
		}
	default:
		if t, ok := parseDateTime(s); ok {
			return t, Violation{}
		}
		if isText {
			for _, layout := range localLayouts {
				if t, err := time.Parse(layout, s); err == nil {
					return t, Violation{}
				}
			}
		}
	}
	return nil, n.timeRule()
}

func decodeDuration(raw any) (any, Violation) {
	d, isDuration := raw.(time.Duration)
	s, isText, _ := stringOf(raw)
	if isText {
		// Go's form, typed by a person: 1h30m.
		if pd, err := time.ParseDuration(s); err == nil {
			d, isDuration = pd, true
		}
	}
	if isDuration {
		// The JSON form (an ISO 8601 duration in whole units, as JSON
		// Schema's format) has no sign and no fraction: a duration it
		// cannot hold is refused here too, so that every accepted
		// duration has one canonical JSON.
		if d < 0 || d%time.Second != 0 {
			return nil, rule(RuleWholeSeconds)
		}
		return d, Violation{}
	}
	d, ok := parseDuration(s)
	if !ok {
		return nil, Violation{Rule: RuleFormat, Detail: "duration"}
	}
	return d, Violation{}
}

func (n *node) decodeEntityRef(raw any) (any, Violation) {
	s, _, ok := stringOf(raw)
	if !ok {
		return nil, n.entityRule()
	}
	if n.entityType != "" {
		if s == "" {
			return nil, n.entityRule()
		}
		return entityRef{n.entityType, s}, Violation{}
	}
	typ, id, ok := strings.Cut(s, ":")
	if !ok || typ == "" || id == "" || strings.ContainsRune(typ, '\n') {
		return nil, n.entityRule()
	}
	return entityRef{typ, id}, Violation{}
}

// stringOf returns raw as a string: a JSON string as it is, text a person
// typed (isText) trimmed of surrounding spaces; ok is false for anything
// else.
func stringOf(raw any) (s string, isText, ok bool) {
	switch x := raw.(type) {
	case string:
		return x, false, true
	case Text:
		return strings.TrimSpace(string(x)), true, true
	}
	return "", false, false
}

func (n *node) timeRule() Violation {
	if n.def.Constraints.DateOnly && n.kind == kDateTime {
		return Violation{Rule: RuleFormat, Detail: "date"}
	}
	return Violation{Rule: RuleFormat, Detail: "date-time"}
}

func (n *node) entityRule() Violation {
	if n.entityType != "" {
		return Violation{Rule: RuleEntityID, Detail: n.entityTypeName()}
	}
	return rule(RuleEntityID)
}

// toInt converts a JSON or Go number with an integral value to int64.
func toInt(raw any) (int64, bool) {
	switch x := raw.(type) {
	case float64:
		if x != math.Trunc(x) || x < -(1<<63) || x >= 1<<63 {
			return 0, false
		}
		return int64(x), true
	case int:
		return int64(x), true
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	case uint:
		if uint64(x) > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint8:
		return int64(x), true
	case float32:
		return toInt(float64(x))
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, true
		}
		if f, err := x.Float64(); err == nil {
			return toInt(f)
		}
	}
	return 0, false
}

// toFloat converts a JSON or Go number to float64.
func toFloat(raw any) (float64, bool) {
	switch x := raw.(type) {
	case float64:
		return x, finite(x)
	case float32:
		return float64(x), finite(float64(x))
	case json.Number:
		f, err := x.Float64()
		return f, err == nil && finite(f)
	}
	if i, ok := toInt(raw); ok {
		return float64(i), true
	}
	return 0, false
}

// check checks the constraints of a decoded scalar.
func (n *node) check(v any, p *pathSeg, vs *violations) {
	c := &n.def.Constraints
	switch x := v.(type) {
	case string:
		if c.NotBlank && x == "" {
			vs.add(p, Violation{Rule: RuleMinLength, Limit: limit(1)})
			return
		}
		if n.noNUL && strings.IndexByte(x, 0) >= 0 {
			vs.add(p, rule(RuleNULCharacter))
			return
		}
		if n.minLen >= 0 || n.maxLen >= 0 {
			l := utf8.RuneCountInString(x)
			if n.minLen >= 0 && l < n.minLen {
				vs.add(p, Violation{Rule: RuleMinLength, Limit: limit(n.minLen)})
			}
			if n.maxLen >= 0 && l > n.maxLen {
				vs.add(p, Violation{Rule: RuleMaxLength, Limit: limit(n.maxLen)})
			}
		}
		if c.Email && n.kind == kString && !validEmail(x) {
			vs.add(p, Violation{Rule: RuleFormat, Detail: "email"})
		}
		if n.pattern != nil && !n.pattern.MatchString(x) {
			if n.pattern == base64Pattern {
				vs.add(p, Violation{Rule: RuleContentEncoding, Detail: "base64"})
			} else {
				vs.add(p, Violation{Rule: RulePattern, Detail: c.Pattern})
			}
		}
	case int64:
		if n.hasMin && float64(x) < n.min {
			vs.add(p, Violation{Rule: RuleMinimum, Limit: limitAt(n.min)})
		}
		if n.hasMax && float64(x) > n.max {
			vs.add(p, Violation{Rule: RuleMaximum, Limit: limitAt(n.max)})
		}
	case float64:
		if n.hasMin && x < n.min {
			vs.add(p, Violation{Rule: RuleMinimum, Limit: limitAt(n.min)})
		}
		if n.hasMax && x > n.max {
			vs.add(p, Violation{Rule: RuleMaximum, Limit: limitAt(n.max)})
		}
	}
	if n.choice != nil && !n.inChoice(v) {
		vs.add(p, Violation{Rule: RuleEnum, Choices: n.choiceList()})
	}
	if n.custom != nil && n.custom.Check != nil {
		if msg := n.custom.Check(v); msg != "" {
			vs.add(p, Violation{Rule: RuleCheck, Message: msg})
		}
	}
}

func (n *node) inChoice(v any) bool {
	for _, c := range n.choice {
		if c == v {
			return true
		}
		// Compare instants, not time.Time representations.
		if t, ok := v.(time.Time); ok {
			if ct, ok := c.(time.Time); ok && t.Equal(ct) {
				return true
			}
		}
	}
	return false
}

func (n *node) choiceList() []string { return choiceTexts(n.def.Constraints.Choice) }

func formatNumber(f float64) string {
	if math.Abs(f) >= 1e21 {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func (n *node) decodeList(raw any, p *pathSeg, vs *violations) any {
	var in []any
	switch x := raw.(type) {
	case []any:
		in = x
	case []string:
		in = make([]any, len(x))
		for i, s := range x {
			in[i] = s
		}
	case []Text:
		in = make([]any, len(x))
		for i, s := range x {
			in[i] = s
		}
	case Text:
		s := strings.TrimSpace(string(x))
		if strings.HasPrefix(s, "[") {
			var l []any
			if err := jsonv2.Unmarshal([]byte(s), &l); err != nil {
				vs.add(p, Violation{Rule: RuleJSON, Detail: jsonProblem(err)})
				return nil
			}
			in = l
		} else {
			in = []any{x}
		}
	default:
		vs.add(p, Violation{Rule: RuleType, Detail: "list"})
		return nil
	}
	// Items past the list's maximum are counted, not decoded.
	kept := in
	if n.maxCount >= 0 && len(kept) > n.maxCount {
		kept = kept[:n.maxCount]
	}
	out := make([]any, len(kept))
	for i, item := range kept {
		ip := p.item(i)
		if item == nil && !n.items.def.Nullable {
			vs.add(&ip, rule(RuleNotNull))
			continue
		}
		out[i] = n.items.decode(item, &ip, vs)
	}
	n.checkCount(len(in), RuleMinItems, RuleMaxItems, p, vs)
	return out
}

// checkCount checks NotBlank and Count on a list or map of size items.
func (n *node) checkCount(size int, minRule, maxRule string, p *pathSeg, vs *violations) {
	if n.def.Constraints.NotBlank && size == 0 {
		vs.add(p, Violation{Rule: minRule, Limit: limit(1)})
	}
	if n.minCount >= 0 && size < n.minCount {
		vs.add(p, Violation{Rule: minRule, Limit: limit(n.minCount)})
	}
	if n.maxCount >= 0 && size > n.maxCount {
		vs.add(p, Violation{Rule: maxRule, Limit: limit(n.maxCount)})
	}
}

func (n *node) decodeMap(raw any, p *pathSeg, vs *violations) any {
	var in map[string]any
	switch x := raw.(type) {
	case map[string]any:
		in = x
	case Text:
		if err := jsonv2.Unmarshal([]byte(strings.TrimSpace(string(x))), &in); err != nil || in == nil {
			vs.add(p, Violation{Rule: RuleType, Detail: "map"})
			return nil
		}
	default:
		vs.add(p, Violation{Rule: RuleType, Detail: "map"})
		return nil
	}
	n.checkCount(len(in)-n.nullsReadAsAbsent(in), RuleMinProperties, RuleMaxProperties, p, vs)
	out := make(map[string]any, len(in))
	if n.props == nil {
		for k, v := range in {
			kp := pathSeg{parent: p, name: k, key: true}
			if n.values == nil {
				if t, ok := v.(Text); ok {
					v = string(t)
				}
				out[k] = plainJSON(v)
				continue
			}
			out[k] = n.values.decode(v, &kp, vs)
		}
		return out
	}
	var extra []string
	extraMore := 0
	for k := range in {
		if _, ok := n.propIndex[k]; !ok {
			if len(extra) < maxViolations {
				extra = append(extra, k)
			} else {
				extraMore++
			}
		}
	}
	for _, pn := range n.props {
		name := pn.def.Name
		v, present := in[name]
		pp := p.prop(name)
		if !present || (v == nil && !pn.def.Nullable) {
			// Absent, or null where null is no value: as for an input,
			// the default (left out when there is none).
			switch {
			case pn.def.Required:
				vs.add(&pp, rule(RuleRequired))
			case present && pn.def.Constraints.NotNull:
				vs.add(&pp, rule(RuleNotNull))
			case pn.deflt != nil:
				out[name] = cloneDefault(pn.deflt)
			}
			continue
		}
		out[name] = pn.decode(v, &pp, vs)
	}
	slices.Sort(extra)
	for _, k := range extra {
		kp := p.prop(k)
		vs.add(&kp, rule(RuleAdditionalProperties))
	}
	vs.more += extraMore
	return out
}

// canonical returns x, a value decoded by n (see [Values]), in the JSON
// form a run accepts for it: times in RFC 3339, durations in ISO 8601,
// entities by their references.
func (n *node) canonical(x any, noSensitive bool) any {
	switch v := x.(type) {
	case nil:
		return nil
	case time.Time:
		if n.def.Constraints.DateOnly && n.kind == kDateTime {
			return v.UTC().Format("2006-01-02")
		}
		return v.UTC().Format(time.RFC3339Nano)
	case time.Duration:
		return formatDuration(v)
	case entityRef:
		if n.entityType != "" {
			return v.id
		}
		return v.typ + ":" + v.id
	case []any:
		if n.kind != kList {
			return plainJSON(v)
		}
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = n.items.canonical(item, noSensitive)
		}
		return out
	case map[string]any:
		if n.kind != kMap || (n.props == nil && n.values == nil) {
			return v
		}
		out := make(map[string]any, len(v))
		for k, item := range v {
			if n.props == nil {
				out[k] = n.values.canonical(item, noSensitive)
				continue
			}
			i, ok := n.propIndex[k]
			if !ok || (noSensitive && n.props[i].def.Sensitive) {
				continue
			}
			out[k] = n.props[i].canonical(item, noSensitive)
		}
		return out
	}
	if n.kind == kEntity && n.et != nil {
		if id, _, ok := n.et.Describe(x); ok {
			return id
		}
	}
	return x
}

// nullsReadAsAbsent counts the properties of in that are null where null
// reads as absent (optional, not nullable, not NotNull): they count as
// absent for the map's Count and NotBlank too, as the schema, which does
// not allow them, sees the map without them.
func (n *node) nullsReadAsAbsent(in map[string]any) int {
	count := 0
	for _, pn := range n.props {
		d := pn.def
		if v, present := in[d.Name]; present && v == nil && !d.Required && !d.Nullable && !d.Constraints.NotNull {
			count++
		}
	}
	return count
}
