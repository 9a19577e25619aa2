package gen

import (
	"fmt"
	"go/constant"
	"go/types"
	"math"
	"slices"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

const toolPath = "github.com/toolapi/toolapi/tool"

func isNamed(t types.Type, path, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	obj := n.Obj()
	return obj.Pkg() != nil && obj.Pkg().Path() == path && obj.Name() == name
}

func isContext(t types.Type) bool { return isNamed(t, "context", "Context") }
func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}
func isTime(t types.Type) bool       { return isNamed(t, "time", "Time") }
func isDuration(t types.Type) bool   { return isNamed(t, "time", "Duration") }
func isToolResult(t types.Type) bool { return isNamed(t, toolPath, "Result") }

// isToolResultType reports tool.Result or *tool.Result.
func isToolResultType(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	return isToolResult(t)
}

func namedObj(t types.Type) *types.TypeName {
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj()
	}
	return nil
}

func entityDataType(ids []string) string {
	if len(ids) == 1 {
		return "entity:" + ids[0]
	}
	return "entity"
}

// isEntityDef reports a definition of an entity or a list of them.
func isEntityDef(d *tool.Definition) bool {
	if d == nil {
		return false
	}
	if d.Type == "list" && d.Items != nil {
		return isEntityDef(d.Items)
	}
	return d.Type == "entity" || strings.HasPrefix(d.Type, "entity:")
}

var jsonMarshaler = func() *types.Interface {
	sig := types.NewSignatureType(nil, nil, nil, nil,
		types.NewTuple(
			types.NewVar(0, nil, "", types.NewSlice(types.Typ[types.Byte])),
			types.NewVar(0, nil, "", types.Universe.Lookup("error").Type()),
		), false)
	fn := types.NewFunc(0, nil, "MarshalJSON", sig)
	return types.NewInterfaceType([]*types.Func{fn}, nil).Complete()
}()

func isMarshaler(t types.Type) bool {
	if _, isIface := t.Underlying().(*types.Interface); isIface {
		return false
	}
	return types.Implements(t, jsonMarshaler) || types.Implements(types.NewPointer(t), jsonMarshaler)
}

// maxExactInteger is 2^53-1, the largest integer a float64 holds along
// with every integer below it.
const maxExactInteger = 1<<53 - 1

// scalar returns the data type of a basic type and, for sized integers,
// their bounds.
func scalar(b *types.Basic) (typ string, rng *tool.Range, ok bool) {
	f := func(lo, hi float64) *tool.Range { return &tool.Range{Min: tool.Ptr(lo), Max: tool.Ptr(hi)} }
	switch b.Kind() {
	case types.String:
		return "string", nil, true
	case types.Bool:
		return "boolean", nil, true
	case types.Int, types.Int64:
		return "integer", nil, true
	case types.Int8:
		return "integer", f(math.MinInt8, math.MaxInt8), true
	case types.Int16:
		return "integer", f(math.MinInt16, math.MaxInt16), true
	case types.Int32:
		return "integer", f(math.MinInt32, math.MaxInt32), true
	case types.Uint8:
		return "integer", f(0, math.MaxUint8), true
	case types.Uint16:
		return "integer", f(0, math.MaxUint16), true
	case types.Uint32:
		return "integer", f(0, math.MaxUint32), true
	case types.Uint, types.Uint64, types.Uintptr:
		// Bounds are float64s in definitions and JSON Schemas: the largest
		// integer bound a float64 holds exactly is 2^53-1, which the
		// schema advertises and the run enforces alike.
		return "integer", f(0, maxExactInteger), true
	case types.Float32:
		return "float", f(-math.MaxFloat32, math.MaxFloat32), true
	case types.Float64:
		return "float", nil, true
	}
	return "", nil, false
}

// enumChoices returns the values of the constants of named type t declared
// in its package, in source order.
func enumChoices(t types.Type) []any {
	obj := namedObj(t)
	if obj == nil || obj.Pkg() == nil {
		return nil
	}
	scope := obj.Pkg().Scope()
	var consts []*types.Const
	for _, name := range scope.Names() {
		c, ok := scope.Lookup(name).(*types.Const)
		if ok && types.Identical(c.Type(), t) {
			consts = append(consts, c)
		}
	}
	slices.SortStableFunc(consts, func(a, b *types.Const) int { return int(a.Pos() - b.Pos()) })
	var out []any
	seen := map[string]bool{}
	for _, c := range consts {
		v := c.Val()
		var x any
		switch v.Kind() {
		case constant.String:
			x = constant.StringVal(v)
		case constant.Int:
			n, exact := constant.Int64Val(v)
			if !exact {
				continue
			}
			x = int(n)
		default:
			continue
		}
		if k := fmt.Sprint(x); !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}

// isBytes reports a byte slice ([]byte or a named type over it).
func isBytes(t types.Type) bool {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	b, ok := s.Elem().Underlying().(*types.Basic)
	return ok && b.Kind() == types.Byte
}

// wireGoType returns the Go type tool.Values holds for a basic kind.
func wireGoType(b *types.Basic) string {
	switch {
	case b.Info()&types.IsString != 0:
		return "string"
	case b.Info()&types.IsBoolean != 0:
		return "bool"
	case b.Info()&types.IsInteger != 0:
		return "int64"
	case b.Info()&types.IsFloat != 0:
		return "float64"
	}
	return b.Name()
}
