package tool

import "context"

// A Reporter carries what a running tool tells its caller while it runs.
// Callers that can pass such news on (MCP) put one in the run's context;
// elsewhere the news is dropped.
type Reporter interface {
	// Progress reports that done of total units are done (total 0 means
	// unknown), with an optional message.
	Progress(ctx context.Context, done, total float64, message string)
	// Log sends a log message at a level ("debug", "info", "notice",
	// "warning", "error", ...) to the caller.
	Log(ctx context.Context, level, message string)
}

type reporterKey struct{}

// WithReporter returns a context whose runs report to r.
func WithReporter(ctx context.Context, r Reporter) context.Context {
	return context.WithValue(ctx, reporterKey{}, r)
}

func reporterFrom(ctx context.Context) Reporter {
	r, _ := ctx.Value(reporterKey{}).(Reporter)
	return r
}

// Progress reports the progress of the running tool to its caller, if the
// caller listens.
func Progress(ctx context.Context, done, total float64, message string) {
	if r := reporterFrom(ctx); r != nil {
		r.Progress(ctx, done, total, message)
	}
}

// Log sends a log message from the running tool to its caller, if the
// caller listens.
func Log(ctx context.Context, level, message string) {
	if r := reporterFrom(ctx); r != nil {
		r.Log(ctx, level, message)
	}
}

// A Confirmer asks a person to confirm a run of a tool marked Confirm. It
// returns true only on an accepted answer.
type Confirmer interface {
	Confirm(ctx context.Context, t *Tool, in *Values) (bool, error)
}

type confirmerKey struct{}

// WithConfirmer returns a context whose runs of tools marked Confirm ask c.
// Without a Confirmer such runs fail as access failures saying that
// confirmation is needed.
func WithConfirmer(ctx context.Context, c Confirmer) context.Context {
	return context.WithValue(ctx, confirmerKey{}, c)
}

// Confirmed is a [Confirmer] that accepts every run: for callers where the
// person has already confirmed (a CLI's --yes, a submitted dialog).
var Confirmed Confirmer = confirmed{}

type confirmed struct{}

func (confirmed) Confirm(context.Context, *Tool, *Values) (bool, error) { return true, nil }
