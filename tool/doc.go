// Package tool defines tools: typed, validated, access-checked operations
// that people and AI agents call, and the [Registry] that runs them.
//
// A [Tool] has an ID, a label, a description, an [Operation], a permission,
// [Definition]s of its inputs and outputs, and a [Handler]. toolgen writes
// tools for methods marked //tool:method; applications may also write them:
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
// tools through [Registry.Run] on one path: the permission, validation
// against exactly the advertised input schema, entities and access,
// confirmation, the call, then the outputs, kept within the tool's
// [Budget] (a list paged, outputs too big kept aside). [Registry.Use] adds
// [Middleware] around it.
//
// A run ends in a [Result]: success with outputs, or a [Failure] with
// [Violation]s naming each input path and rule. Only an [InputError],
// [AccessError] or [RunError] speaks to the caller; any other error or
// panic is logged and the caller learns only that the run failed.
//
// Inputs have limits by default: see [DefaultMaxItems] and
// [Constraints].AllowNUL.
package tool
