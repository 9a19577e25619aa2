package main

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// An Exporter writes the strings of albums to gettext PO files for
// translators, one file per album and language, under its own directory.
type Exporter struct {
	store *Store
	dir   string
}

// An ExportRun is what one export did.
type ExportRun struct {
	// Files are the paths written.
	Files []string
	// Strings is how many strings were written.
	Strings int
	// Problems lists what the check of the written files found wrong.
	Problems []string
}

var langcodeRE = regexp.MustCompile(`^[a-z]{2,3}$`)

// ExportForTool exports the strings of albums for translation into a
// language, to files in the exporter's directory, which callers cannot
// choose. Each file is read back and checked after it is written.
//
//   - albums: The albums to export.
//   - langcode: The language the strings are to be translated into, as an ISO 639 code.
//
//tool:method id=translation.export label="Export translations" op=write destructive=false permission="export translations"
//tool:entity albums op=view notblank
//tool:input langcode pattern=^[a-z]{2,3}$ example=de
//tool:output files "The files written." type=uri multiple
//tool:output string_count "How many strings were exported." type=integer
//tool:output problems "What the check of the written files found wrong, one line each." type=string multiple
func (e *Exporter) ExportForTool(ctx context.Context, albums []*Album, langcode string) (*tool.Result, error) {
	if !langcodeRE.MatchString(langcode) {
		return nil, tool.InputErrorf("langcode", "must be two or three lowercase letters")
	}
	run, err := e.Export(ctx, albums, langcode, filepath.Join(e.dir, langcode))
	if err != nil {
		return nil, err
	}
	uris := make([]string, len(run.Files))
	for i, f := range run.Files {
		uris[i] = (&url.URL{Scheme: "file", Path: filepath.ToSlash(f)}).String()
	}
	outputs := map[string]any{"files": uris, "string_count": run.Strings, "problems": run.Problems}
	if len(run.Problems) > 0 {
		return tool.Failed(fmt.Sprintf("The export wrote %s, but the check after writing found %s.",
			count(len(run.Files), "file"), count(len(run.Problems), "problem")), outputs), nil
	}
	return tool.Succeeded(fmt.Sprintf("Exported %s to %s.", count(run.Strings, "string"), count(len(run.Files), "file")), outputs), nil
}

// count returns "1 file", "2 files".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Export writes one PO file per album into dir, then reads each back and
// checks it.
func (e *Exporter) Export(ctx context.Context, albums []*Album, langcode, dir string) (*ExportRun, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	run := &ExportRun{Files: []string{}, Problems: []string{}}
	seen := map[int64]bool{}
	for _, a := range albums {
		if seen[a.ID] {
			continue
		}
		seen[a.ID] = true
		entries, err := e.entries(ctx, a)
		if err != nil {
			return nil, err
		}
		path, err := filepath.Abs(filepath.Join(dir, "album-"+strconv.FormatInt(a.ID, 10)+".po"))
		if err != nil {
			return nil, err
		}
		if err := writePO(path, langcode, entries); err != nil {
			return nil, err
		}
		run.Files = append(run.Files, path)
		run.Strings += len(entries)
		problems, err := checkPO(path, len(entries))
		if err != nil {
			return nil, err
		}
		for _, p := range problems {
			run.Problems = append(run.Problems, filepath.Base(path)+": "+p)
		}
	}
	return run, nil
}

// A poEntry is one string to translate, with the context saying where it
// comes from ("album:3:title").
type poEntry struct{ context, source string }

func (e *Exporter) entries(ctx context.Context, a *Album) ([]poEntry, error) {
	out := []poEntry{{fmt.Sprintf("album:%d:title", a.ID), a.Title}}
	tracks, err := e.store.Tracks(ctx, a)
	if err != nil {
		return nil, err
	}
	for _, t := range tracks {
		out = append(out, poEntry{fmt.Sprintf("track:%d:title", t.ID), t.Title})
	}
	images, err := e.store.Images(ctx, a)
	if err != nil {
		return nil, err
	}
	for _, img := range images {
		out = append(out, poEntry{fmt.Sprintf("image:%d:title", img.id), img.Title})
		if img.Caption != "" {
			out = append(out, poEntry{fmt.Sprintf("image:%d:caption", img.id), img.Caption})
		}
		// Every image needs alt text, so an empty one is exported too and
		// caught by the check.
		out = append(out, poEntry{fmt.Sprintf("image:%d:alt", img.id), img.Alt})
	}
	return out, nil
}

// writePO writes entries to path as a PO file, replacing it whole.
func writePO(path, langcode string, entries []poEntry) error {
	var b strings.Builder
	fmt.Fprintf(&b, "msgid \"\"\nmsgstr %s\n", poQuote("Language: "+langcode+"\nContent-Type: text/plain; charset=UTF-8\n"))
	for _, e := range entries {
		fmt.Fprintf(&b, "\nmsgctxt %s\nmsgid %s\nmsgstr \"\"\n", poQuote(e.context), poQuote(e.source))
	}
	// A temporary file of this run's own, renamed over path: concurrent
	// exports of one album never write into each other's file.
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func poQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\r", `\r`)
	return `"` + r.Replace(s) + `"`
}

// checkPO reads a written PO file back and returns its problems: an entry
// whose source string is blank (translators cannot translate it, and an
// empty msgid is reserved for the header), or a count of entries other
// than the want written.
func checkPO(path string, want int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var problems []string
	var ctxt string
	count := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "msgctxt "):
			ctxt, err = strconv.Unquote(strings.TrimPrefix(line, "msgctxt "))
			if err != nil {
				problems = append(problems, "unreadable context "+line)
			}
		case strings.HasPrefix(line, "msgid "):
			src, err := strconv.Unquote(strings.TrimPrefix(line, "msgid "))
			if err != nil {
				problems = append(problems, "unreadable string in "+ctxt)
				continue
			}
			if ctxt == "" {
				continue // the header
			}
			count++
			if strings.TrimSpace(src) == "" {
				problems = append(problems, ctxt+" is blank")
			}
			ctxt = ""
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if count != want {
		problems = append(problems, fmt.Sprintf("%d strings read back, %d written", count, want))
	}
	return problems, nil
}
