// Package tool defines tools: typed, validated, access-checked operations
// that people and AI agents call, and the [Registry] that runs them.
//
// A tool is a [Tool]: an ID, a label, a description, an [Operation], a
// permission, [Definition]s of its inputs and outputs, and a [Handler].
// toolgen writes tools for methods marked //tool:method; applications may
// also write them by hand:
//
//	reg := tool.NewRegistry(nil)
//	reg.Add(&tool.Tool{
//		ID: "hello.greet", Label: "Greet", Description: "Greets someone.",
//		Operation: tool.OpRead, Permission: "access content",
//		Inputs:  []*tool.Definition{{Name: "name", Type: "string", Required: true}},
//		Outputs: []*tool.Definition{{Name: "result", Type: "string", Required: true}},
//		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
//			return tool.Succeeded("", map[string]any{"result": "Hello, " + in.String("name")}), nil
//		},
//	})
//	res, err := reg.RunJSON(tool.WithAccount(ctx, user), "hello.greet", []byte(`{"name":"Ada"}`))
//
// Every caller (the CLI, the explorer, MCP, function calling, Go code) runs
// tools through [Registry.Run] or [Registry.RunJSON], so every run takes the
// same path: the permission, decoding and coercion, validation, loading the
// entities, entity ops and the access method, confirmation, the call,
// publishing the outputs and validating them. What a caller sends is checked
// against exactly what the input schema ([Registry.Describe]) advertises (JSON Schema 2020-12);
// what a tool returns is checked against its output definitions, and only
// declared outputs reach the caller.
//
// A run ends in a [Result]: success with outputs, or a failure of category
// [FailureInput] (with [Violation]s naming each input path and rule, at
// most 50 and a last one counting the rest), [FailureAccess] or
// [FailureRuntime]. A handler's [InputError] reaches the caller, and an
// [AccessError] (see [Refuse]) says why a run was refused; any other error
// or panic is logged with the tool ID and the caller learns only that the
// run failed.
//
// A [Tool] is a plain value: a [Registry] compiles it when it is added
// ([Tool.Check] and [Registry.Add] report every problem as a
// [DefinitionError]: the same rules toolgen reports for method tools,
// from the ID's syntax to where a constraint applies), and one Tool may
// be added to several registries.
// [Registry.Use] adds [Middleware] around every run, from every caller;
// [Registry.Validate] checks arguments as a run would without running
// anything, and returns their canonical JSON.
//
// Inputs have limits by default: a list input takes at most
// [DefaultMaxItems] items unless its definition says otherwise, a string
// input rejects the NUL character unless [Constraints].AllowNUL, and a
// [Definition] marked Sensitive is never quoted in a message.
package tool
