package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/toolapp"
)

// AuditTrail returns the audit trail of the store: the table audit_trail
// of its database, created when missing.
func (s *Store) AuditTrail(ctx context.Context) (*audit.SQLStore, error) {
	trail, err := audit.NewSQLStore(s.db, nil)
	if err != nil {
		return nil, err
	}
	if err := s.schemaLocked(ctx, trail.Migrate); err != nil {
		return nil, err
	}
	return trail, nil
}

// schemaLocked runs f, which changes the schema, holding on PostgreSQL the
// advisory lock [Store.migrate] holds, so that processes starting together
// on one database do not create the same table at once.
func (s *Store) schemaLocked(ctx context.Context, f func(context.Context) error) error {
	if !s.postgres {
		return f(ctx)
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(7431)`); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(7431)`)
	return f(ctx)
}

// UseAuditTrail installs the audit middleware on the application's
// registry, keeping the trail in the store's database: every run of a
// write tool is recorded before it starts, and refused runs when they end
// (those of one account for one tool counted in one record a minute), for
// every caller (CLI, MCP, the explorer). `album audit` lists it.
func (a *App) UseAuditTrail(ctx context.Context) error {
	trail, err := a.Store.AuditTrail(ctx)
	if err != nil {
		return fmt.Errorf("opening the audit trail: %w", err)
	}
	a.trail = audit.New(trail, &audit.Options{Logger: a.Logger})
	a.Registry.Use(a.trail.Middleware())
	a.Trail = trail
	return nil
}

// auditFormat is the value of `album audit --format`: table or json.
type auditFormat string

func (f *auditFormat) String() string { return string(*f) }

func (f *auditFormat) Set(v string) error {
	if v != "table" && v != "json" {
		return fmt.Errorf("must be table or json, not %q", v)
	}
	*f = auditFormat(v)
	return nil
}

// auditLimit is the value of `album audit --limit`: 1 to [audit.MaxLimit].
type auditLimit int

func (l *auditLimit) String() string { return strconv.Itoa(int(*l)) }

func (l *auditLimit) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > audit.MaxLimit {
		return fmt.Errorf("must be a whole number between 1 and %d", audit.MaxLimit)
	}
	*l = auditLimit(n)
	return nil
}

// auditCommand returns `album audit`, which lists the audit trail of the
// store the opener opened, newest first, or with the word verify checks
// its hash chain and names the first broken link (exit status 1):
//
//	album audit [--account ID] [--tool ID] [--agent NAME] [--limit N] [--format table|json]
//	album audit verify
func (f *flags) auditCommand() *toolapp.Command {
	var (
		filter audit.Filter
		limit  = auditLimit(audit.DefaultLimit)
		format = auditFormat("table")
	)
	return &toolapp.Command{
		Name:    "audit",
		Usage:   "[--account ID] [--tool ID] [--agent NAME] [--limit N] [--format table|json] | verify",
		Summary: "list the audit trail, newest first: the runs of write tools and\nthe refused runs (who, how, outcome, failure category, a hash of the\ninputs); \"verify\" checks its hash chain and names the first broken link",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&filter.Account, "account", "", "only the runs of this account `ID`")
			fs.StringVar(&filter.Tool, "tool", "", "only the runs of this tool `ID`")
			fs.StringVar(&filter.Agent, "agent", "", "only the runs of this agent `NAME` (an OAuth client or actor)")
			fs.Var(&limit, "limit", fmt.Sprintf("at most `N` runs (1 to %d)", audit.MaxLimit))
			fs.Var(&format, "format", "output `format`: table or json")
		},
		Run: func(ctx context.Context, _ *toolapp.App, args []string, stdout io.Writer) error {
			if len(args) > 1 || len(args) == 1 && args[0] != "verify" {
				return fmt.Errorf("unexpected argument %q", args[len(args)-1])
			}
			filter.Limit = int(limit)
			trail, err := f.store.AuditTrail(ctx)
			if err != nil {
				return err
			}
			if len(args) == 1 {
				return toolapp.VerifyAudit(ctx, trail, stdout)
			}
			records, err := trail.List(ctx, &filter)
			if err != nil {
				return err
			}
			if format == "json" {
				return writeAuditJSON(stdout, records)
			}
			return writeAuditTable(stdout, records)
		},
	}
}

// An auditRow is a record as `album audit --format json` prints it.
type auditRow struct {
	ID           string  `json:"id"`
	Time         string  `json:"time"`
	Account      string  `json:"account"`
	Tool         string  `json:"tool"`
	Operation    string  `json:"operation"`
	Outcome      string  `json:"outcome"`
	Failure      string  `json:"failure,omitempty"`
	InputsSHA256 string  `json:"inputs_sha256,omitempty"`
	Seconds      float64 `json:"duration_seconds"`
	Runs         int     `json:"runs"`
	Channel      string  `json:"channel,omitempty"`
	Client       string  `json:"client,omitempty"`
	Agent        string  `json:"agent,omitempty"`
	TraceID      string  `json:"trace_id,omitempty"`
	CallID       string  `json:"call_id,omitempty"`
}

func writeAuditJSON(w io.Writer, records []audit.Record) error {
	rows := make([]auditRow, 0, len(records))
	for _, r := range records {
		rows = append(rows, auditRow{r.ID, r.Time.Format(time.RFC3339Nano), r.Account, r.Tool, r.Operation,
			string(r.Outcome), string(r.Failure), r.InputsSHA256, r.Duration.Seconds(), max(r.Runs, 1),
			r.Channel, r.Client, r.Agent, r.TraceID, r.CallID})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"runs": rows})
}

func writeAuditTable(w io.Writer, records []audit.Record) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tACCOUNT\tAGENT\tCHANNEL\tTOOL\tOUTCOME\tFAILURE\tRUNS\tINPUTS\tDURATION")
	for _, r := range records {
		inputs := r.InputsSHA256
		if len(inputs) > 12 {
			inputs = inputs[:12]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.Time.Format(time.RFC3339), r.Account, dash(r.Agent), dash(r.Channel), r.Tool,
			r.Outcome, r.Failure, max(r.Runs, 1), inputs, r.Duration.Round(time.Microsecond))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
