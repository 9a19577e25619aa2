// Package toolcli is the command line caller of a [tool.Registry]: the
// "tool" command every application mounts in its own binary.
//
//	reg := tool.NewRegistry(nil)
//	reg.Add(greet, sum)
//	switch os.Args[1] {
//	case "tool":
//		os.Exit(toolcli.Run(ctx, reg, os.Args[2:], os.Stdout, os.Stderr, &toolcli.Options{
//			Accounts: lookUpUser,
//			Stdin:    os.Stdin,
//		}))
//	}
//
// [Run] takes the words after "tool":
//
//	list   [--format table|json|markdown] [--operation OP] [--user NAME]
//	search WORDS... [--match or|and] [--format table|json|markdown] [--operation OP] [--user NAME]
//	info   ID [--format text|json] [--user NAME]
//	run    ID [--preset NAME] [--input k=v | --input '{json}']... [--json] [--user NAME] [--yes] [--detach]
//	export [--format FORMAT] [--user NAME]
//	task   list|show|wait|answer|cancel ...
//
// Every command also takes --groups NAME[,NAME...] and --read-only: the
// command then reaches only the tools of those toolsets ([tool.Tool.Groups])
// or only those that read, as an MCP connection narrowed so does; a tool
// outside is not found, and info says why. A group no tool declares is an
// error.
//
// Flags may come before or after the positional words, and "--" ends the
// flags. The exit status is 0 on success and 1 on any failure, usage
// errors included.
//
// # IDs and names
//
// info and run take a tool's ID ("album.add_track") or its name in MCP and
// function calling ([tool.NameOf]: "album__add_track"), found with
// [tool.Registry.ToolByName] as every caller finds it. list and search show both
// (the ID and NAME columns of the table, the ID and Name columns of
// --format markdown), and the DEF that info and list print with --format
// json carries the name as "name", after "id".
//
// # Accounts
//
// Every command acts for one account: the one --user names, looked up with
// [Options.Accounts], else [Options.DefaultAccount], else [tool.Anonymous].
// A blocked account is refused before anything runs. list and search show
// only the tools the account's permissions allow, info describes only
// those, export declares only those and run runs only those: to info and
// run, a tool the account may not run is not found, exactly as a tool that
// does not exist (tool_not_found), so that an account cannot tell whether
// there is one; the message names the account. Whatever else decides
// access (entity operations, the tool's access method) is the run path's.
//
// # Describing a tool
//
// list and search mark a deprecated tool's label "(deprecated: NOTE)", and
// info prints its note on a Deprecated line.
//
// info prints a tool's description, operation, access and definitions: for
// each input and output its type, whether it is required, its default and
// description, and under it every rule its value must follow (not blank,
// lengths, counts, ranges, choices, patterns, formats, examples). The
// properties of a map input follow it under their --input paths
// ("settings.limit"). With --format json it prints the tool's DEF, its
// JSON Schemas included. A tool the account may not run is not found.
//
// # Inputs
//
// Each --input of run is either key=value or a JSON object:
//
//   - key=value sets input key to the text value, as [tool.Text]; the
//     registry coerces it to the input's type ("10" to an integer), the same
//     way for every caller that sends what a person typed.
//   - Repeating a key builds a list: --input tags=a --input tags=b sends
//     ["a", "b"]. A single value for an input defined as a list is sent as
//     a list of one.
//   - A dotted key builds nested maps: --input settings.limit=5 sends
//     {"settings": {"limit": "5"}}.
//   - A value starting with "{" is a JSON object whose keys are merged into
//     the arguments as typed JSON values, with no coercion; nested objects
//     merge, anything else replaces what was there. Malformed JSON is an
//     invalid_option failure.
//
// # Presets
//
// --preset NAME starts from the values of the account's preset NAME of the
// tool, read from [Options.Presets] (package toolapp gives it the tool
// explorer's presets). The --input values are merged on top and win: a
// key=value or a JSON key replaces the preset's value of that input (a
// list whole), and dotted keys and JSON objects set keys inside the maps
// the preset holds. The merged values are validated and run by the
// registry's run path like typed ones, so a stored value the tool no longer
// takes gets the same violations. A name the account has no preset of is
// an invalid_option failure naming it and listing the account's presets of
// the tool; without [Options.Presets], --preset fails saying presets are
// not configured. A preset that cannot be read is an execution_failed
// failure, its error logged on the registry's logger.
//
// # Results
//
// Without --json, run prints the result's message and then its outputs as
// indented JSON; a failure prints its message and then each violation on
// its own line as "path: message" (unless the message already names the
// only one), on standard error, and the outputs it carries (see
// [tool.Failed]) as indented JSON on standard output. With --json it
// prints one JSON object on standard output, failures included; outputs
// is an object on success ({} when there are none) and is there on a
// failure that carries outputs:
//
//	{"success":true,"message":"Greet completed.","outputs":{...}}
//	{"success":false,"message":"...","error_type":"invalid_input","violations":[{"path":"count","message":"..."}]}
//	{"success":false,"message":"...","outputs":{"imported":2},"error_type":"execution_failed","violations":[]}
//
// error_type is one of tool_not_found, invalid_option (a bad flag, a
// malformed --input, an unknown --preset), user_not_found, user_blocked,
// invalid_input, access_denied and execution_failed (the last three are
// the input, access and runtime failure categories of [tool.Result]).
//
// # Confirmation
//
// A destructive tool (see [tool.Tool.IsDestructive]: by default, every write and trigger tool) and a tool marked
// [tool.Tool.Confirm] run only once a person says yes: --yes says it on
// the command line; otherwise, when [Options.Stdin] is a terminal (or any
// reader that is not a file), run asks "Run LABEL? [y/N]" on standard error
// and takes "y" or "yes". Without either the run fails as access_denied,
// with a message naming --yes. A destructive tool whose inputs are wrong is
// refused as the run path refuses it (checked with
// [tool.Registry.Validate]), without a question; a tool both destructive
// and marked Confirm asks once.
//
// While a tool runs, the progress and log messages it reports (see
// [tool.Progress] and [tool.Log]) are printed on standard error.
//
// # Tasks
//
// With [Options.Tasks] set, a tool whose [tool.Tool.Task] mode is optional
// or required runs as a durable task (package task): run --detach creates
// the task and prints its ID; a tool whose every call is a task is created
// and waited for even without --detach. The task commands act on the tasks
// of the account (--user):
//
//	task list   [--limit N] [--cursor C] [--json]
//	task show   TASK [--json]
//	task wait   TASK [--json]
//	task answer TASK [--decline | --cancel] [--input k=v | --input '{json}']...
//	task cancel TASK
//
// wait shows the task's progress on standard error, asks its questions
// when a person can answer them (else it prints the question and exits with
// 1), and reports the task's outcome as run reports a run's, with the same
// exit status. Another account's task is not found, in the same words as an
// ID that never existed; cancelling a task that has ended and answering one
// that does not wait each fail with a message that says so.
//
// # Function calling
//
// export prints, as one JSON array, the declarations of every tool the
// account may call in the function-calling format --format names, made by
// [funcall.Toolset.Declarations]: the tool names are their IDs'
// ([tool.NameOf]: "album.search" is "album__search"), the
// descriptions are the tools' and the parameters are their input schemas,
// rewritten for the strict and Gemini formats. The formats:
//
//	openai                   [{"type":"function","function":{"name","description","parameters"}}]  (the default)
//	openai-strict            the same with "strict": true, every property required
//	openai-responses         [{"type":"function","name","description","parameters","strict":false}]
//	openai-responses-strict  the same with "strict": true, every property required
//	anthropic                [{"name","description","input_schema"}]
//	anthropic-strict         the same with "strict": true
//	gemini                   [{"name","description","parameters"}], for a tool's "functionDeclarations"
//
// A strict format declares "strict": false, or no "strict", for a tool it
// cannot express (a map without declared properties, a value of any type).
// An application hands the same declarations to a model with
// [funcall.Toolset.Declarations], and runs the calls the model makes with
// [funcall.Toolset.DispatchCall].
package toolcli
