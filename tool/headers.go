package tool

import (
	"net/url"
	"strings"
)

// MaxIconLength is the longest a tool's Icon may be, in bytes: every
// client that lists the tools receives it, so a picture held in a data:
// address must be small.
const MaxIconLength = 32 << 10

// checkIcon adds the problem of t's Icon to errs: it must be an https:
// address with a host, or a data:image/ address holding its data, at most
// [MaxIconLength] bytes.
func checkIcon(icon string, errs *definitionErrors) {
	if icon == "" {
		return
	}
	if len(icon) > MaxIconLength {
		errs.add("", "icon", "the icon is %d bytes, more than the %d a tool's icon may be: link to it with an https: address", len(icon), MaxIconLength)
		return
	}
	if rest, ok := strings.CutPrefix(icon, "data:"); ok {
		if !strings.HasPrefix(rest, "image/") || !strings.Contains(rest, ",") {
			errs.add("", "icon", "a data: icon must be an image: data:image/TYPE[;base64],DATA")
		}
		return
	}
	u, err := url.Parse(icon)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		errs.add("", "icon", "the icon must be an https: address with a host, or a data:image/ address")
	}
}

// checkHeaders adds to errs the problems of the Header of e's inputs: only
// a top-level input of a string, integer or boolean type that is not
// sensitive is mirrored in a header, whose name is an HTTP token, used by
// one input of the tool whatever its letter case.
func checkHeaders(inputs []*node, errs *definitionErrors) {
	seen := map[string]string{}
	for _, n := range inputs {
		d := n.def
		path := "inputs." + d.Name
		for _, child := range nestedHeaders(d, path) {
			errs.add(child, "header", "only a top-level input is mirrored in a header")
		}
		if d.Header == "" {
			continue
		}
		switch {
		case !isToken(d.Header):
			errs.add(path, "header", "header %q is not a header name (letters, digits and !#$%%&'*+-.^_`|~, no spaces)", d.Header)
		case !headerKind(n.kind):
			errs.add(path, "header", "only a string, integer or boolean input is mirrored in a header, not %s", d.Type)
		case d.Sensitive:
			errs.add(path, "header", "a sensitive input is not mirrored in a header, which gateways and logs read")
		case seen[strings.ToLower(d.Header)] != "":
			errs.add(path, "header", "header %q already carries the input %s (header names ignore case)", d.Header, seen[strings.ToLower(d.Header)])
		default:
			seen[strings.ToLower(d.Header)] = d.Name
		}
	}
}

// headerKind reports the kinds of value a header carries as text.
func headerKind(k kind) bool {
	switch k {
	case kString, kEmail, kURI, kDateTime, kTimestamp, kDuration, kInteger, kBoolean:
		return true
	}
	return false
}

// nestedHeaders returns the paths of the definitions under d that set a
// Header.
func nestedHeaders(d *Definition, path string) []string {
	var out []string
	var walk func(d *Definition, path string)
	walk = func(d *Definition, path string) {
		if d == nil {
			return
		}
		for _, p := range d.Properties {
			if p != nil {
				if p.Header != "" {
					out = append(out, path+"."+p.Name)
				}
				walk(p, path+"."+p.Name)
			}
		}
		for _, c := range []*Definition{d.Items, d.Values} {
			if c != nil {
				if c.Header != "" {
					out = append(out, path+"[]")
				}
				walk(c, path+"[]")
			}
		}
	}
	walk(d, path)
	return out
}

// isToken reports an RFC 9110 token: visible ASCII characters other than
// the separators, at least one.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
