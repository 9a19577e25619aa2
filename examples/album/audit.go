package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/toolapi/toolapi/audit"
)

// AuditTrail returns the audit trail of the store: the table audit_trail
// of its database, created when missing.
func (s *Store) AuditTrail(ctx context.Context) (*audit.SQLStore, error) {
	trail, err := audit.NewSQLStore(s.db, nil)
	if err != nil {
		return nil, err
	}
	if err := trail.Migrate(ctx); err != nil {
		return nil, err
	}
	return trail, nil
}

// listAudit is `album audit`: it lists the audit trail of the store, newest
// first.
//
//	album audit [--account ID] [--tool ID] [--limit N] [--format table|json]
func listAudit(ctx context.Context, s *Store, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("album audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f audit.Filter
	fs.StringVar(&f.Account, "account", "", "only the runs of this account `ID`")
	fs.StringVar(&f.Tool, "tool", "", "only the runs of this tool `ID`")
	fs.IntVar(&f.Limit, "limit", audit.DefaultLimit, fmt.Sprintf("at most `N` runs (1 to %d)", audit.MaxLimit))
	format := fs.String("format", "table", "output `format`: table or json")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "album audit: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if f.Limit < 1 || f.Limit > audit.MaxLimit {
		fmt.Fprintf(stderr, "album audit: --limit: must be between 1 and %d\n", audit.MaxLimit)
		return 2
	}
	if *format != "table" && *format != "json" {
		fmt.Fprintf(stderr, "album audit: --format: must be table or json, not %q\n", *format)
		return 2
	}
	trail, err := s.AuditTrail(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "album audit: %v\n", err)
		return 1
	}
	records, err := trail.List(ctx, &f)
	if err != nil {
		fmt.Fprintf(stderr, "album audit: %v\n", err)
		return 1
	}
	if *format == "json" {
		type row struct {
			ID           string  `json:"id"`
			Time         string  `json:"time"`
			Account      string  `json:"account"`
			Tool         string  `json:"tool"`
			Operation    string  `json:"operation"`
			Outcome      string  `json:"outcome"`
			Failure      string  `json:"failure,omitempty"`
			InputsSHA256 string  `json:"inputs_sha256,omitempty"`
			Seconds      float64 `json:"duration_seconds"`
		}
		rows := make([]row, 0, len(records))
		for _, r := range records {
			rows = append(rows, row{r.ID, r.Time.Format(time.RFC3339Nano), r.Account, r.Tool, r.Operation,
				string(r.Outcome), string(r.Failure), r.InputsSHA256, r.Duration.Seconds()})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"runs": rows}); err != nil {
			fmt.Fprintf(stderr, "album audit: %v\n", err)
			return 1
		}
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tACCOUNT\tTOOL\tOUTCOME\tFAILURE\tINPUTS\tDURATION")
	for _, r := range records {
		inputs := r.InputsSHA256
		if len(inputs) > 12 {
			inputs = inputs[:12]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Time.Format(time.RFC3339), r.Account, r.Tool,
			r.Outcome, r.Failure, inputs, r.Duration.Round(time.Microsecond))
	}
	return exitOf(tw.Flush(), stderr)
}

func exitOf(err error, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintf(stderr, "album audit: %v\n", err)
		return 1
	}
	return 0
}
