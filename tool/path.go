package tool

import "strconv"

// A pathSeg is one step of the path to a value, kept on the stack while
// decoding and rendered only when a violation needs it.
type pathSeg struct {
	parent *pathSeg
	name   string // property or input name; empty for an item
	index  int
	key    bool // name is a map key of a map without properties
}

func (p *pathSeg) String() string {
	if p == nil {
		return ""
	}
	prefix := p.parent.String()
	switch {
	case p.name == "" && !p.key:
		return prefix + "[" + strconv.Itoa(p.index) + "]"
	case prefix == "":
		return p.name
	default:
		return prefix + "." + p.name
	}
}

func (p *pathSeg) item(i int) pathSeg       { return pathSeg{parent: p, index: i} }
func (p *pathSeg) prop(name string) pathSeg { return pathSeg{parent: p, name: name} }
