// Command toolgen turns Go methods marked //tool:method into tools.
//
// Usage:
//
//	go run github.com/toolapi/toolapi/cmd/toolgen [-strict] [-check] [-describe] [packages]
//
// It writes tools_gen.go in every package with tools. Packages are
// directories ("./...", "dir", "dir/..."); the default is "./...".
//
//	-strict    exit 1 if there is any diagnostic
//	-check     write nothing; exit 1 if a generated file is stale, printing the command that fixes it
//	-describe  write nothing; print the tools and diagnostics as JSON
//
// In a package, //go:generate go run github.com/toolapi/toolapi/cmd/toolgen
// regenerates that package's file.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/toolapi/toolapi/internal/gen"
)

func main() {
	var opts gen.Options
	flag.BoolVar(&opts.Strict, "strict", false, "exit 1 if there is any diagnostic")
	flag.BoolVar(&opts.Check, "check", false, "write nothing; exit 1 if a generated file is stale")
	flag.BoolVar(&opts.Describe, "describe", false, "write nothing; print the tools and diagnostics as JSON")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: toolgen [-strict] [-check] [-describe] [packages]")
		flag.PrintDefaults()
	}
	flag.Parse()
	opts.Patterns = flag.Args()
	os.Exit(gen.Run(&opts))
}
