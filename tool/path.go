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

// String renders the path ("tags[2]", "settings.limit"). It walks the
// segments without keeping them and copies the names' bytes, so that no
// segment escapes to the heap through a violation: segments stay on their
// callers' stacks.
func (p *pathSeg) String() string {
	size := 0
	var num [20]byte
	for q := p; q != nil; q = q.parent {
		if q.name == "" && !q.key {
			size += 2 + len(strconv.AppendInt(num[:0], int64(q.index), 10))
		} else {
			size += len(q.name)
			if q.parent != nil {
				size++
			}
		}
	}
	b := make([]byte, size)
	i := size
	for q := p; q != nil; q = q.parent {
		if q.name == "" && !q.key {
			d := strconv.AppendInt(num[:0], int64(q.index), 10)
			i--
			b[i] = ']'
			i -= len(d)
			copy(b[i:], d)
			i--
			b[i] = '['
			continue
		}
		i -= len(q.name)
		copy(b[i:], q.name)
		if q.parent != nil {
			i--
			b[i] = '.'
		}
	}
	return string(b)
}

func (p *pathSeg) item(i int) pathSeg       { return pathSeg{parent: p, index: i} }
func (p *pathSeg) prop(name string) pathSeg { return pathSeg{parent: p, name: name} }
