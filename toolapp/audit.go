package toolapp

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/toolapi/toolapi/audit"
)

// ErrChainBroken is the error of "audit verify" when the audit trail's
// hash chain does not hold; what broke is printed before it.
var ErrChainBroken = errors.New("the audit trail's chain is broken")

// errNoTrail is the error of "audit verify" for an App without a trail.
var errNoTrail = errors.New("the application keeps no audit trail (App.Audit is nil)")

// audit runs "audit verify".
func (r *runner) audit(args []string) error {
	fs := r.flagSet("audit", nil)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) != "verify" {
		fmt.Fprintf(r.opts.Stderr, "%s audit: want the word verify\n", r.opts.Name)
		return errUsage
	}
	app, release, err := r.openApp()
	if err != nil {
		return err
	}
	defer release()
	if app.Audit == nil {
		return errNoTrail
	}
	return VerifyAudit(r.ctx, app.Audit, r.opts.Stdout)
}

// VerifyAudit checks the hash chain of trail (see [audit.SQLStore.Verify])
// and writes what it found to w: that the chain holds, or its first broken
// link (the record's ID and what differs) and how many breaks there are,
// returning [ErrChainBroken]. An application's own audit command calls it
// for "audit verify".
func VerifyAudit(ctx context.Context, trail *audit.SQLStore, w io.Writer) error {
	b, err := trail.Verify(ctx)
	if err != nil {
		return err
	}
	if b == nil {
		_, err := fmt.Fprintln(w, "The audit trail's chain holds.")
		return err
	}
	fmt.Fprintf(w, "first broken link: %s\n", b)
	if b.Breaks > 1 {
		fmt.Fprintf(w, "%d breaks in all\n", b.Breaks)
	}
	return ErrChainBroken
}
