// Command toolgen turns Go methods marked //tool:method into tools.
//
// Usage:
//
//	go tool toolgen [-lenient] [-check] [-describe] [-lock] [packages]
//
// It writes tools_gen.go in every package with tools. Packages are
// directories ("./...", "dir", "dir/..."); the default is "./...". A
// method whose tool cannot be built is left out with a diagnostic, the
// other tools are written, and toolgen exits 1.
//
//	-lenient   exit 0 even when there are diagnostics
//	-strict    the default: exit 1 if there is any diagnostic (accepted for older scripts)
//	-check     write nothing; exit 1 if a generated file is stale, printing the command that fixes it
//	-describe  write nothing; print the tools and diagnostics as JSON
//	-lock      also write tools.lock.json in every package with tools, accepting every change
//
// A package's tools.lock.json (written by -lock, committed with the code)
// locks the contract of its tools: each tool's ID, deprecation note and
// input and output JSON Schemas. While it exists, toolgen keeps it current
// as the tools change compatibly (a new optional input, a choice added, a
// tool deprecated); a breaking change (a tool or input removed, a new
// required input, a narrowed type, choice list, range or pattern) leaves
// it as it was and fails, and -check prints each change
// ("a.go:12:1: tool album.search: breaking: inputs.limit: the maximum fell
// from 100 to 50", compatible ones as notes) and fails on breaking ones.
// Run toolgen -lock to accept a breaking change deliberately.
//
// Add toolgen to a module with go get -tool
// github.com/toolapi/toolapi/cmd/toolgen; then //go:generate go tool
// toolgen in a package regenerates that package's file.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/toolapi/toolapi/internal/gen"
)

func main() {
	var opts gen.Options
	flag.BoolVar(&opts.Lenient, "lenient", false, "exit 0 even when there are diagnostics")
	flag.Bool("strict", true, "exit 1 if there is any diagnostic (the default)")
	flag.BoolVar(&opts.Check, "check", false, "write nothing; exit 1 if a generated file is stale")
	flag.BoolVar(&opts.Describe, "describe", false, "write nothing; print the tools and diagnostics as JSON")
	flag.BoolVar(&opts.Lock, "lock", false, "also write "+gen.LockFile+" in every package with tools, accepting every change")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: toolgen [-lenient] [-check] [-describe] [-lock] [packages]")
		flag.PrintDefaults()
	}
	flag.Parse()
	opts.Patterns = flag.Args()
	os.Exit(gen.Run(&opts))
}
