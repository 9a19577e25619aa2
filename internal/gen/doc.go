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
//  1. [Scan] reads each Go file's bytes for "//tool:" without parsing it
//     (or for "tool:" and "tools:" opening a comment or a line, so that a
//     package whose only directive is mistyped is loaded and reported),
//     skipping test files, generated files, testdata and vendor
//     directories and nested modules. Directories are listed and files
//     read by a pool of GOMAXPROCS workers, each file with one read into a
//     reused buffer (on Linux: openat relative to the open directory,
//     getdents64 with the entry types, no stat; BenchmarkScan keeps it,
//     2 to 2.5 times faster than filepath.WalkDir and os.ReadFile). Only
//     directories with a hit go on.
//  2. [Load] type-checks those packages with go/packages, asking for
//     [LoadMode] (names, types, syntax, type information) and building
//     with the "toolgen" tag. Generated files carry //go:build !toolgen,
//     so a stale one that no longer compiles never stops its own
//     regeneration; type errors from calls into the generated file (which
//     is not loaded) are expected and ignored, while a tool method whose
//     own signature does not type-check is reported. toolgen reads
//     declarations only, so function bodies are dropped at parse time and
//     never type-checked; and the scanned files are parsed while the go
//     command lists the packages, which keeps one process busy for most of
//     a load.
//  3. [Infer] indexes the loaded syntax (directives, doc comments, type
//     and method declarations) and builds a [Package] model per package:
//     plain data, no Go code. Each tool holds its definitions as
//     tool.Tool, its parameters with their Go types, how each output's
//     value is published (as it is, converted, through a generated
//     helper for pointers, lists, maps, structs and value objects), and
//     the names of its access=, confirm= and refine= methods. Each tool's
//     definitions are checked by [tool.Tool.Check], as a registry would
//     check them. A method whose tool cannot be built is left out with a
//     [Diagnostic]; every other tool still generates. Two methods sharing
//     an ID are both left out. Packages are inferred one after another:
//     inference is a few percent of a run, which the load dominates.
//  4. [Render] alone writes Go: from the model it writes the decoders,
//     the publishing helpers and the calls, and imports a package exactly
//     when the code it wrote names it, so a left-out method leaves
//     nothing behind. A parameter named as an imported package is renamed
//     in the generated code. The file is executed from a text/template
//     and formatted with go/format. -describe stops after inference and
//     prints each tool's [tool.Info], its schemas encoded by the tool
//     package's encoder (see [Description.MarshalIndented]).
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
// decoders for struct parameters, base64 decoding for byte slices), calls
// the method directly and publishes its results: value objects through
// generated functions that call the marked getters and read the marked
// fields, lists as []any, named string and integer types as string and
// int64, byte slices as []byte (which the tool package publishes as
// base64), tool.Resource as it is, pointers as their value or nil. No
// reflection runs per call, and a changed method signature breaks the
// build of the generated file. The properties of each named struct and
// value object are written once, in a function returning them, which
// every tool using that type calls.
//
// # Lock files
//
// A package's [LockFile], written by -lock ([Options.Lock]), holds each
// tool's ID, deprecation note and schemas; package internal/contract
// compares it with the tools found and sorts the changes into breaking
// and compatible ones. A plain run rewrites an existing lock whose
// changes are all compatible and keeps it, failing, on a breaking one;
// -check prints every change ([LockChange], positioned as diagnostics
// are, or at the tool's entry in the lock file for a removed tool) and
// fails on breaking ones.
//
// toolgen exits 1 when it printed any diagnostic (the good tools are
// still written); -lenient keeps the exit status 0, and -strict, the
// default, is accepted for older scripts. -check's fix-it line is always
// [FixCommand] with the packages, however toolgen was started.
//
// # Decisions
//
//   - access=Method names a method of the same type with the signature
//     func(ctx context.Context, <the tool method's parameters, without its
//     context>) (bool, error). It runs after the inputs are resolved; the
//     generated adapter decodes the inputs as the handler does.
//   - confirm=Method names a method of the same type with the signature
//     func(ctx context.Context, <the tool method's parameters, without its
//     context>) (reason string, err error); it becomes tool.Tool.ConfirmIf,
//     whose adapter decodes the inputs as access= does. A method that is
//     missing is reported with the closest name the type has.
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
//   - A struct parameter is a map input; the tool tags of its fields give
//     each property its name and input options (see package
//     internal/directive for the rule that makes a struct a value object,
//     an output only). A problem with a field or getter is reported at its
//     declaration: besides its tool tag's options, a struct tag that
//     mentions tool but breaks reflect.StructTag's syntax (which would
//     drop the key silently), a tool tag on a field json:"-" leaves out of
//     an input, and one on an unexported field.
//   - A comment that looks like a directive but is none ("// tool:method",
//     "//tools:method", a directive in a /* */ comment) is a diagnostic
//     saying how to write it.
//   - A []byte (or a named type over it) is a string: as an output or
//     value-object member it is published as standard base64 (padded),
//     as the tool package publishes bytes, with no contentEncoding in
//     the schema and its media= kept; as an input the generated code
//     decodes standard base64, and a value that is not base64 fails the
//     run as a tool.InputError whose input is the value's path ("image",
//     "frames[2]", "file.content"). An access= method never sees such a
//     value: its adapter lets the handler, which decodes the same inputs,
//     report the input error.
//   - A tool.Resource result, named result or member is the output
//     tool.ResourceDefinition(name, description) defines; a
//     *tool.Resource is that output, nullable as every pointer result is.
//   - The definitions are checked by [tool.Tool.Check]; what it rejects
//     (a pattern that is no regular expression, a default outside the
//     choices...) leaves the method out with a diagnostic "invalid
//     definition: ...". An application data type (type= naming no
//     built-in type) is known only to the application's registry: toolgen
//     checks and describes it as the built-in type of its Go value (any
//     over a tool.Result) and lists its input or output under
//     "undescribed".
package gen
