// Package directive parses the //tool: directives that toolgen reads from
// Go doc comments.
//
//	d, diags := directive.Parse(`//tool:input word "A single word." example=Oma`, pos)
//	// d.Name == "input", d.Arg == "word", d.String("description") == "A single word."
//
// # Grammar
//
// A directive is one comment line. Nothing may stand between "//" and
// "tool:", so gofmt and go/doc treat the line as a directive and keep it out
// of the documentation. A line with space there ("// tool:method") is
// prose to gofmt and go/doc; [IsSpaced] recognizes it, so that toolgen
// reports it instead of ignoring it.
//
//	directive   = "//tool:" name [ space arg ] { space item } .
//	name        = "method" | "input" | "entity" | "output" | "property"
//	            | "entitytype" | "config" .
//	arg         = bare .                      (the NAME some directives take)
//	item        = description | key "=" value | flag .
//	description = quoted .                    (only as the first item)
//	flag        = key .                       (the same as key=true)
//	key         = letter { letter | digit | "_" } .
//	value       = bare | quoted .
//	bare        = a run of characters other than space, tab and '"' .
//	quoted      = a Go interpreted string literal ("a \"b\" c") .
//
// Items are separated by spaces or tabs. A key that takes a list may repeat,
// each repetition appending (example=a example=b); any other key may appear
// once. The description may also be written as description="...".
//
// # Directives and their keys
//
// The directive decides whether it takes an argument and which keys it
// accepts; [Specs] holds the table. The argument is required for input,
// entity, entitytype and config, optional for output (a first bare token
// that is not one of output's flags is its name), and not accepted by
// method and property.
//
//	method      id label description op destructive permission approver access refine
//	            confirm deprecated task taskttl icon needs group budget...
//	input NAME  description label type example... default notblank notnull
//	            count length range choice labels pattern media dateonly locked
//	            sensitive config definition header
//	entity NAME as input without config and header, plus op (required) and optional
//	output      name description label type multiple example... media config
//	            nullable members definition
//	property    description name label type media example... choice omitnull
//	entitytype ID[,ID...]
//	config NAME
//
// # Values
//
// Each key's value has a kind, checked by [Parse]:
//
//   - text: any value (id, label, description, permission, example,
//     default, pattern, media, config, name, deprecated).
//   - flag: no value, or true or false (notblank, destructive...).
//   - identifier: a Go identifier, or pkg.Ident for definition (access,
//     refine, definition).
//   - flag or method: no value, true or false, or a Go identifier
//     naming a method (confirm, confirm=Method); given once.
//   - operation: read, write, trigger, transform or explain (method op); on
//     entity, op is any lower-case word (view, update, delete...).
//   - type: a data type name: a lower-case word, or entity:ID.
//   - count bounds: MIN..MAX of non-negative integers, either side may be
//     left out (count=1.., length=..80), or one integer N meaning N..N.
//   - number range: MIN..MAX of numbers, either side may be left out
//     (range=-1.5..1.5).
//   - choice: values separated by "|" (choice=draft|live); none empty
//     (choice, and labels, one label of each choice).
//   - members: a selection of value-object members (see below).
//   - one of: one of the values the key lists (method task: optional or
//     required).
//   - list of: one or more of the values the key lists, separated by ","
//     and none twice (method needs: sampling, logging).
//   - duration: a positive Go duration (method taskttl=30m).
//   - image address: an https: address with a host, or a data:image/
//     address (method icon).
//   - header name: an HTTP header name, an RFC 9110 token (input header).
//   - budget: a positive number of bytes (budget=16000), or of items of a
//     list output (budget=50items); method's budget may repeat to give
//     both, each at most once (budget=16000 budget=50items).
//   - group names: one or more names of 1 to 64 lowercase letters, digits,
//     "-" and "_", separated by "," and none twice (method group=viewer,admin).
//
// # Members
//
// The members key of output selects and orders the members of a value
// object at the call site:
//
//	members   = member { "," member } .
//	member    = name [ "(" members ")" ] [ "{" refine { sep refine } "}" ] .
//	refine    = key "=" value | flag .        (keys of property)
//	sep       = "," | " " .
//
// For example members=langcode,documents(uri,problems) or
// members="title,caption{media=text/html}".
//
// # Struct tags
//
// Fields of a struct carry a tool struct tag, parsed by [ParseTag]:
//
//	tool:"[name][,opt...]"
//	opt = "omitnull" | "notblank" | "notnull" | "dateonly" | "sensitive"
//	    | ("type" | "media" | "label" | "example" | "default" | "pattern") "=" value
//	    | ("count" | "length") "=" MIN..MAX | "range=" MIN..MAX | "choice=" a|b|c
//
// Each option means what the key of the same name means on //tool:input
// or //tool:property; values cannot hold a comma. The whole struct tag
// must keep reflect.StructTag's key:"value" syntax, which
// [CheckStructTag] checks with a message saying how to fix it; tool:"-"
// is an error, as it hides nothing (json:"-" leaves a field out of a
// struct input, and a value object publishes only tagged fields). name renames the member
// or property (it wins over a json tag); a field's description is its doc
// comment.
//
// What a tagged struct is depends on where it is used:
//
//   - As a result or member, a named struct that tags fields is a value
//     object: it publishes its tagged fields (and its getters marked
//     //tool:property), refined by their options. default, notnull and
//     sensitive, which only inputs take, are a diagnostic there.
//   - As a parameter, a struct is a map input whose properties are all
//     its exported fields; a tag gives a property its name and input
//     options (default=, range=, choice=, pattern=...), so that each
//     property of a map input has its own default and constraints.
//   - A struct is a value object that only outputs take when it has a
//     getter marked //tool:property or a field whose tag has an option
//     only a published member takes ([OutputOnly]: omitnull). Taking one
//     as a parameter is a diagnostic naming that getter or field.
//
// # Diagnostics
//
// Parse never stops at the first problem: an unknown directive, an unknown
// key, a repeated key, a missing or extra argument and a bad value each give
// a [Diagnostic] at the exact column of the offending token. Comments
// that look like directives but are none, and so would be ignored, are
// found by [IsSpaced] ("// tool:method") and [Mistyped] ("//tools:method",
// "/* tool:method */").
package directive
