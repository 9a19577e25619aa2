package gen

import (
	"go/types"
	"slices"
	"strconv"
	"strings"
)

// imports names the packages a generated file refers to.
type imports struct {
	self   *types.Package
	byPath map[string]string // path -> local name
	used   map[string]bool   // local names taken
}

func newImports(self *types.Package) *imports {
	im := &imports{self: self, byPath: map[string]string{}, used: map[string]bool{}}
	// Names the generated code uses for itself.
	for _, n := range []string{"ctx", "in", "svc", "t", "err", "m", "v", "x", "out", "res"} {
		im.used[n] = true
	}
	return im
}

// add imports path, returning its local name.
func (im *imports) add(path, name string) string {
	if local, ok := im.byPath[path]; ok {
		return local
	}
	local := name
	for i := 2; im.used[local]; i++ {
		local = name + strconv.Itoa(i)
	}
	im.used[local] = true
	im.byPath[path] = local
	return local
}

func (im *imports) qualifier(p *types.Package) string {
	if p == im.self || p == nil {
		return ""
	}
	return im.add(p.Path(), p.Name())
}

// typeString returns how the generated file spells t.
func (im *imports) typeString(t types.Type) string { return types.TypeString(t, im.qualifier) }

// lines returns the import block's lines, standard library first.
func (im *imports) lines() (std, other []string) {
	for path, local := range im.byPath {
		line := strconv.Quote(path)
		if base := path[strings.LastIndex(path, "/")+1:]; base != local {
			line = local + " " + line
		}
		if strings.Contains(strings.SplitN(path, "/", 2)[0], ".") {
			other = append(other, line)
		} else {
			std = append(std, line)
		}
	}
	slices.Sort(std)
	slices.Sort(other)
	return std, other
}
