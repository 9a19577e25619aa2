package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/secrets"
	"github.com/toolapi/toolapi/tool"
)

// secretKey is the key of the question that sends the client's person to
// the page where they enter the sensitive inputs a call left out.
const secretKey = "secret"

// canElicitURL reports whether the client offers URL elicitation.
func (c *call) canElicitURL() bool {
	caps := c.req.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil
}

// AskSecrets implements [tool.SecretAsker]: a client that offers URL
// elicitation is sent the page's address and the call waits for the
// values (see [Options.Secrets]); any other gets the link to show.
func (c *call) AskSecrets(ctx context.Context, t *tool.Tool, missing []*tool.Definition, key string) (map[string]string, error) {
	if !c.canElicitURL() {
		return c.desk.AskSecrets(ctx, t, missing, key)
	}
	r, err := c.desk.Open(ctx, t, missing, key)
	if err != nil {
		return nil, err
	}
	if values, ok := c.desk.Take(r); ok {
		return values, nil
	}
	params := &mcp.ElicitParams{
		Mode: "url", URL: c.desk.URL(r), ElicitationID: r.ID,
		Message: fmt.Sprintf("%s needs %s. Enter it on the page this opens, so that it does not pass through the assistant.", r.Label, secretNames(missing)),
	}
	accepted, err := c.askURL(ctx, params)
	if errors.Is(err, errAsking) {
		return nil, err // asked in an input-required result: the page stays open for the next round
	}
	if err != nil || !accepted {
		// The call ends without the values: the page takes none for it.
		c.desk.Cancel(r)
		if err != nil {
			return nil, err
		}
		return nil, tool.ErrSecretsDeclined
	}
	values, err := c.desk.Wait(ctx, r)
	if errors.Is(err, secrets.ErrExpired) {
		return nil, &tool.RunError{Message: fmt.Sprintf("%s did not run: nobody entered %s on its page in time. Call it again.", r.Label, secretNames(missing)), Err: err}
	}
	if err != nil {
		c.desk.Cancel(r)
		return nil, err
	}
	if !c.rounds {
		// Tell the client the page is done. The values are in hand: the
		// run goes on whether the notification reaches it or not.
		_ = c.req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: r.ID})
	}
	return values, nil
}

// askURL asks the client's person to open a page (URL elicitation) and
// reports whether they accepted: through a request of the session, or,
// from protocol version 2026-07-28 on, as the question "secret" of an
// input-required result.
func (c *call) askURL(ctx context.Context, params *mcp.ElicitParams) (bool, error) {
	if !c.rounds {
		res, err := c.req.Session.Elicit(ctx, params)
		if err != nil {
			return false, fmt.Errorf("url elicitation: %w", err)
		}
		return res.Action == "accept", nil
	}
	if _, err := c.claim([]tool.Question{{Kind: tool.AskPerson}}, []string{secretKey}); err != nil {
		return false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.answers[secretKey]; ok {
		if r, ok := a.(*mcp.ElicitResult); ok && r != nil {
			switch r.Action {
			case "accept":
				return true, nil
			case "decline", "cancel":
				return false, nil
			}
		}
	}
	if c.pending == nil {
		c.pending = mcp.InputRequestMap{secretKey: params}
		c.stop()
	}
	return false, errAsking
}

// secretNames names defs by label for the elicitation's message.
func secretNames(defs []*tool.Definition) string {
	s := ""
	for i, d := range defs {
		label := d.Label
		if label == "" {
			label = d.Name
		}
		switch {
		case i == 0:
		case i == len(defs)-1:
			s += " and "
		default:
			s += ", "
		}
		s += label
	}
	return s
}
