// Package gen is toolgen: it turns Go methods marked //tool:method into
// tools, writing one tools_gen.go per package.
//
//	res, err := gen.Generate(".", []string{"./..."})
//	// res.Files holds each package's tools_gen.go, res.Diagnostics every problem.
//	err = res.Write()
//
// # Stages
//
// Like gopls's command generator, it runs in stages, each with a plain
// result:
//
//  1. [Scan] reads each Go file's bytes for "//tool:" without parsing it,
//     in parallel, skipping test files, generated files, testdata and
//     nested modules. Only directories with a hit go on.
//  2. [Load] type-checks those packages with go/packages, asking for
//     [LoadMode] (names, types, syntax, type information) and building
//     with the "toolgen" tag. Generated files carry //go:build !toolgen,
//     so a stale one that no longer compiles never stops its own
//     regeneration; type errors from calls into the generated file (which
//     is not loaded) are expected and ignored, while a tool method whose
//     own signature does not type-check is reported.
//  3. [Infer] indexes the loaded syntax (directives, doc comments, type
//     and method declarations) and builds a [Package] model per package:
//     services, their tools as tool.Tool definitions, and the Go code that
//     decodes inputs and publishes outputs. A method whose tool cannot be
//     built is left out with a [Diagnostic]; every other tool still
//     generates. Two methods sharing an ID are both left out.
//  4. [Render] executes a text/template over the model and formats the
//     result with go/format.
//
// # The generated file
//
// For each service type T (the receiver of tool methods, an interface
// type carrying directives on its methods, or an invokable type) the file
// declares
//
//	func TTools(svc *T) []*tool.Tool   // svc T for an interface type
//
// and, for the package,
//
//	func RegisterTools(r *tool.Registry, svcs ...) error
//
// taking one service per type, in the order of the type names. A nil
// service gives its tools without handlers, which [tool.Registry.Add]
// leaves out and logs; the other tools are added. The error joins the
// reasons of every tool left out.
//
// Each handler converts the tool.Values of a run to the method's
// parameter types with plain Go code (type assertions, conversions to
// named types and enum constants, loops for lists and maps, generated
// decoders for struct parameters), calls the method directly and
// publishes its results: value objects through generated functions that
// call the marked getters and read the marked fields, lists as []any,
// named string and integer types as string and int64, pointers as their
// value or nil. No reflection runs per call, and a changed method
// signature breaks the build of the generated file.
//
// # Decisions
//
//   - access=Method names a method of the same type with the signature
//     func(ctx context.Context, <the tool method's parameters, without its
//     context>) (bool, error). It runs after the inputs are resolved; the
//     generated adapter decodes the inputs as the handler does.
//   - refine=Method names a method of the same type with the signature
//     func(ctx context.Context, def *tool.Definition, values map[string]any) (*tool.Definition, error);
//     it becomes a tool.Refiner over every input, and returns def itself
//     for inputs it leaves alone.
//   - definition=FUNC names a package-level func() *tool.Definition (in
//     the same package, or pkg.Func in an imported one). The generated
//     file calls it and names the result after the input or output.
//     toolgen does not run application code, so -describe shows such an
//     input or output as any and lists it under "undescribed".
//   - Outputs declared over a tool.Result or a map[string]any result are
//     required; a value-object member is required unless omitnull.
//   - A type= override stays within the Go value's kind (a string may
//     become email or uri, an integer timestamp is converted from Unix
//     seconds); an unknown type name is an application data type, checked
//     by the registry.
//   - Getter and field descriptions are their doc comments as written.
package gen
