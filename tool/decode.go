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
				vs.add(&seg, "cannot be checked now; try again")
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
		vs.add(&seg, "is required")
	case present && d.Constraints.NotNull:
		seg := pathSeg{name: d.Name}
		vs.add(&seg, "must not be null")
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
		vs.add(p, "must not be null")
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
	text, isText := raw.(Text)
	switch n.kind {
	case kString, kEmail, kURI:
		var s string
		switch x := raw.(type) {
		case string:
			s = x
		case Text:
			s = string(x)
		default:
			vs.add(p, "must be a string")
			return nil, false
		}
		switch n.kind {
		case kEmail:
			if !validEmail(s) {
				vs.add(p, "must be an email address")
				return nil, false
			}
		case kURI:
			if !validURI(s) {
				vs.add(p, "must be an absolute URI")
				return nil, false
			}
		}
		if _, ok := raw.(string); ok {
			return raw, true // already boxed: no new allocation
		}
		return s, true
	case kInteger:
		if isText {
			i, err := strconv.ParseInt(strings.TrimSpace(string(text)), 10, 64)
			if err != nil {
				vs.add(p, "must be an integer")
				return nil, false
			}
			return i, true
		}
		if _, ok := raw.(int64); ok {
			return raw, true // already boxed
		}
		i, ok := toInt(raw)
		if !ok {
			if f, isNum := toFloat(raw); isNum && f == math.Trunc(f) {
				vs.add(p, "must be an integer between -9223372036854775808 and 9223372036854775807")
			} else {
				vs.add(p, "must be an integer")
			}
			return nil, false
		}
		return i, true
	case kFloat:
		if isText {
			f, err := strconv.ParseFloat(strings.TrimSpace(string(text)), 64)
			if err != nil || !finite(f) {
				vs.add(p, "must be a number")
				return nil, false
			}
			return f, true
		}
		f, ok := toFloat(raw)
		if !ok {
			vs.add(p, "must be a number")
			return nil, false
		}
		if _, ok := raw.(float64); ok {
			return raw, true
		}
		return f, true
	case kBoolean:
		if isText {
			switch strings.ToLower(strings.TrimSpace(string(text))) {
			case "true", "1", "yes", "on":
				return true, true
			case "false", "0", "no", "off", "":
				return false, true
			}
			vs.add(p, "must be true or false")
			return nil, false
		}
		b, ok := raw.(bool)
		if !ok {
			vs.add(p, "must be true or false")
			return nil, false
		}
		return b, true
	case kDateTime, kTimestamp:
		if x, ok := raw.(time.Time); ok {
			if n.def.Constraints.DateOnly {
				y, m, d := x.Date()
				return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), true
			}
			return x.UTC(), true
		}
		s, isText, ok := stringOf(raw)
		if !ok {
			vs.add(p, n.timeRule())
			return nil, false
		}
		if n.def.Constraints.DateOnly && n.kind == kDateTime {
			if t, ok := parseDate(s); ok {
				return t, true
			}
			vs.add(p, n.timeRule())
			return nil, false
		}
		if t, ok := parseDateTime(s); ok {
			return t, true
		}
		if isText {
			// People type local forms (an HTML datetime-local field, a
			// date alone); read them as UTC.
			for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02 15:04:05", "2006-01-02"} {
				if t, err := time.Parse(layout, s); err == nil {
					return t, true
				}
			}
		}
		vs.add(p, n.timeRule())
		return nil, false
	case kDuration:
		d, isDuration := raw.(time.Duration)
		s, isText, ok := stringOf(raw)
		if isText {
			// Go's form, typed by a person: 1h30m.
			if pd, err := time.ParseDuration(s); err == nil {
				d, isDuration = pd, true
			}
		}
		if isDuration {
			// The JSON form (an ISO 8601 duration in whole units, as
			// JSON Schema's format) has no sign and no fraction: a
			// duration it cannot hold is refused here too, so that every
			// accepted duration has one canonical JSON.
			if d < 0 || d%time.Second != 0 {
				vs.add(p, "must be a whole, non-negative number of seconds such as 1h30m or PT1H30M")
				return nil, false
			}
			return d, true
		}
		d, ok = parseDuration(s)
		if !ok {
			vs.add(p, "must be an ISO 8601 duration such as PT1H30M")
			return nil, false
		}
		return d, true
	case kEntity:
		s, _, ok := stringOf(raw)
		if !ok {
			vs.add(p, n.entityRule())
			return nil, false
		}
		if n.entityType != "" {
			if s == "" {
				vs.add(p, n.entityRule())
				return nil, false
			}
			return entityRef{n.entityType, s}, true
		}
		typ, id, ok := strings.Cut(s, ":")
		if !ok || typ == "" || id == "" || strings.ContainsRune(typ, '\n') {
			vs.add(p, n.entityRule())
			return nil, false
		}
		return entityRef{typ, id}, true
	}
	vs.add(p, "has a type that cannot be decoded")
	return nil, false
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

func (n *node) timeRule() string {
	if n.def.Constraints.DateOnly && n.kind == kDateTime {
		return "must be a date such as 2024-05-01"
	}
	return "must be a date and time in RFC 3339 form such as 2024-05-01T12:00:00Z"
}

func (n *node) entityRule() string {
	if n.entityType != "" {
		return "must be the ID of a " + n.entityType + " as a string"
	}
	return `must be an entity reference of the form "type:id"`
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
			vs.add(p, "must not be blank")
			return
		}
		if n.noNUL && strings.IndexByte(x, 0) >= 0 {
			vs.add(p, "must not contain the NUL character (U+0000)")
			return
		}
		if n.minLen >= 0 || n.maxLen >= 0 {
			l := utf8.RuneCountInString(x)
			if n.minLen >= 0 && l < n.minLen {
				vs.add(p, "must be at least "+strconv.Itoa(n.minLen)+" characters long")
			}
			if n.maxLen >= 0 && l > n.maxLen {
				vs.add(p, "must be at most "+strconv.Itoa(n.maxLen)+" characters long")
			}
		}
		if c.Email && n.kind == kString && !validEmail(x) {
			vs.add(p, "must be an email address")
		}
		if n.pattern != nil && !n.pattern.MatchString(x) {
			if n.pattern == base64Pattern {
				vs.add(p, "must be base64 (standard alphabet, padded)")
			} else {
				vs.add(p, "must match the pattern "+c.Pattern)
			}
		}
	case int64:
		if n.hasMin && float64(x) < n.min {
			vs.add(p, "must be at least "+formatNumber(n.min))
		}
		if n.hasMax && float64(x) > n.max {
			vs.add(p, "must be at most "+formatNumber(n.max))
		}
	case float64:
		if n.hasMin && x < n.min {
			vs.add(p, "must be at least "+formatNumber(n.min))
		}
		if n.hasMax && x > n.max {
			vs.add(p, "must be at most "+formatNumber(n.max))
		}
	}
	if n.choice != nil && !n.inChoice(v) {
		vs.add(p, "must be one of: "+n.choiceList())
	}
	if n.custom != nil && n.custom.Check != nil {
		if msg := n.custom.Check(v); msg != "" {
			vs.add(p, msg)
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

func (n *node) choiceList() string {
	parts := make([]string, len(n.def.Constraints.Choice))
	for i, c := range n.def.Constraints.Choice {
		switch x := c.(type) {
		case string:
			parts[i] = x
		default:
			b, _ := json.Marshal(x)
			parts[i] = string(b)
		}
	}
	return strings.Join(parts, ", ")
}

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
				vs.add(p, "must be a list (the text is not a JSON array: "+jsonProblem(err)+")")
				return nil
			}
			in = l
		} else {
			in = []any{x}
		}
	default:
		vs.add(p, "must be a list")
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
			vs.add(&ip, "must not be null")
			continue
		}
		out[i] = n.items.decode(item, &ip, vs)
	}
	n.checkCount(len(in), "item", p, vs)
	return out
}

// checkCount checks NotBlank and Count on a list or map of size items.
func (n *node) checkCount(size int, word string, p *pathSeg, vs *violations) {
	if n.def.Constraints.NotBlank && size == 0 {
		vs.add(p, "must not be empty")
	}
	if n.minCount >= 0 && size < n.minCount {
		vs.add(p, "must have at least "+plural(n.minCount, word))
	}
	if n.maxCount >= 0 && size > n.maxCount {
		vs.add(p, "must have at most "+plural(n.maxCount, word))
	}
}

// pluralWord returns word, in the plural unless n is 1.
func pluralWord(n int, word string) string {
	switch {
	case n == 1:
		return word
	case word == "property":
		return "properties"
	}
	return word + "s"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if word == "property" {
		return strconv.Itoa(n) + " properties"
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func (n *node) decodeMap(raw any, p *pathSeg, vs *violations) any {
	var in map[string]any
	switch x := raw.(type) {
	case map[string]any:
		in = x
	case Text:
		if err := jsonv2.Unmarshal([]byte(strings.TrimSpace(string(x))), &in); err != nil || in == nil {
			vs.add(p, "must be a map (a JSON object)")
			return nil
		}
	default:
		vs.add(p, "must be a map (a JSON object)")
		return nil
	}
	n.checkCount(len(in), "property", p, vs)
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
		if !present {
			if pn.def.Required {
				vs.add(&pp, "is required")
			}
			continue
		}
		out[name] = pn.decode(v, &pp, vs)
	}
	slices.Sort(extra)
	for _, k := range extra {
		kp := p.prop(k)
		vs.add(&kp, "is not a known property")
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
