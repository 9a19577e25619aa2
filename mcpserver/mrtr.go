package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

// How a tool's questions reach the client.
//
// A client on a protocol version before 2026-07-28 is asked through
// requests of its session while the tool runs (elicitation/create,
// sampling/createMessage, roots/list). A client from 2026-07-28 on answers
// through multi round-trip requests: the call answers with the questions
// (an input-required result) and a signed request state, the client calls
// again with its answers and the state, and the tool runs again from the
// start with the answers at hand (see [call]).
//
// Each question has a key: the one the tool gave ([tool.Question.Key]),
// "confirm" for the confirmation of a tool marked Confirm, else "q1",
// "q2", ... in the order the run asks them. A call that brings a request
// state may answer only the questions that state holds as asked; any other
// answer refuses the call with an invalid-params error and nothing runs. A
// call without a request state has its answers taken for the questions of
// those keys that the run asks and the others ignored (the run asks again
// what it misses), except the confirmation, which is only taken with the
// state of the call that asked it: an agent cannot confirm a run its
// person was never asked about.

// newProtocol is the first protocol version in which a server asks the
// client only through multi round-trip requests.
const newProtocol = "2026-07-28"

// confirmKey is the key of the confirmation question of a tool marked
// Confirm.
const confirmKey = "confirm"

// errAsking ends a run that waits for the client's answer. It is a
// cancellation, which the run path reports without logging a failure.
var errAsking = fmt.Errorf("%w: the client is asked first", context.Canceled)

// questionKey is the form of the key of a question a tool names.
var questionKey = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// numberedKey is the form of the keys of questions asked without one.
var numberedKey = regexp.MustCompile(`^q[0-9]+$`)

func (c *call) canSample() bool {
	caps := c.req.ClientCapabilities()
	return caps != nil && caps.Sampling != nil
}

func (c *call) canElicit() bool {
	caps := c.req.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil &&
		(caps.Elicitation.Form != nil || caps.Elicitation.URL == nil)
}

func (c *call) canListRoots() bool {
	caps := c.req.ClientCapabilities()
	return caps != nil && (caps.RootsV2 != nil || caps.Roots.ListChanged)
}

// needs reports whether the tool declares it needs f.
func (c *call) needs(f tool.ClientFeature) bool { return slices.Contains(c.tool.Needs, f) }

// supports returns nil when the client can answer a question of kind k in
// this call, else an error wrapping [tool.ErrUnsupported]. Sampling is
// deprecated from protocol version 2026-07-28 on: such a client is asked
// only by a tool that declares it needs sampling ([tool.NeedsSampling]).
func (c *call) supports(k tool.QuestionKind) error {
	switch k {
	case tool.AskPerson:
		if !c.canElicit() {
			return fmt.Errorf("%w: the MCP client does not offer elicitation", tool.ErrUnsupported)
		}
	case tool.AskModel:
		if !c.canSample() {
			return fmt.Errorf("%w: the MCP client does not offer sampling", tool.ErrUnsupported)
		}
		if c.rounds && !c.needs(tool.NeedsSampling) {
			return fmt.Errorf("%w: sampling is deprecated from MCP protocol version %s on, and offered only to tools that declare they need it", tool.ErrUnsupported, newProtocol)
		}
	case tool.AskRoots:
		if !c.canListRoots() {
			return fmt.Errorf("%w: the MCP client does not offer roots", tool.ErrUnsupported)
		}
	default:
		return fmt.Errorf("%w: question kind %q", tool.ErrUnsupported, k)
	}
	return nil
}

// Ask implements [tool.Asker].
func (c *call) Ask(ctx context.Context, qs []tool.Question) ([]tool.Answer, error) {
	for i, q := range qs {
		if q.Key != "" && (!questionKey.MatchString(q.Key) || q.Key == confirmKey || q.Key == secretKey || numberedKey.MatchString(q.Key)) {
			return nil, fmt.Errorf("question %d: key %q is not letters, digits, _ - . (at most 64), or is reserved (confirm, secret, q1, q2, ...)", i, q.Key)
		}
	}
	return c.ask(ctx, qs, nil)
}

// ask asks qs, the reserved keys given (nil: none, the questions are a
// tool's).
func (c *call) ask(ctx context.Context, qs []tool.Question, keys []string) ([]tool.Answer, error) {
	for _, q := range qs {
		if err := c.supports(q.Kind); err != nil {
			return nil, err
		}
	}
	keys, err := c.claim(qs, keys)
	if err != nil {
		return nil, err
	}
	if !c.rounds {
		return c.askSession(ctx, qs)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	answers := make([]tool.Answer, len(qs))
	var missing mcp.InputRequestMap
	for i, q := range qs {
		if a, ok := c.answers[keys[i]]; ok {
			ans, ok, err := answerOf(q.Kind, a)
			if err != nil {
				return nil, err
			}
			if ok {
				answers[i] = ans
				continue
			}
		}
		if missing == nil {
			missing = make(mcp.InputRequestMap)
		}
		missing[keys[i]] = inputRequest(q)
	}
	if missing == nil {
		return answers, nil
	}
	if c.pending == nil {
		c.pending = missing
		c.stop()
	}
	return nil, errAsking
}

// asked returns the questions that ended the run, or nil, and the answers
// the run used: those to the questions it asked, which the next request
// state carries (an answer sent without a state to a question the run did
// not ask is not kept).
func (c *call) asked() (mcp.InputRequestMap, mcp.InputResponseMap) {
	c.mu.Lock()
	defer c.mu.Unlock()
	used := make(mcp.InputResponseMap)
	for k, a := range c.answers {
		if c.keys[k] {
			used[k] = a
		}
	}
	return c.pending, used
}

// claim returns the keys of qs in this run: keys when given, else each
// question's own or the next number; a key asked before in the run is an
// error.
func (c *call) claim(qs []tool.Question, keys []string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if keys == nil {
		keys = make([]string, len(qs))
		for i, q := range qs {
			if q.Key == "" {
				c.asks++
				keys[i] = fmt.Sprintf("q%d", c.asks)
			} else {
				keys[i] = q.Key
			}
		}
	}
	if c.keys == nil {
		c.keys = make(map[string]bool)
	}
	for _, k := range keys {
		if c.keys[k] {
			return nil, fmt.Errorf("question key %q is asked twice in one run", k)
		}
		c.keys[k] = true
	}
	return keys, nil
}

// askSession asks qs, one after the other, through requests of the session
// (protocol versions before 2026-07-28).
func (c *call) askSession(ctx context.Context, qs []tool.Question) ([]tool.Answer, error) {
	answers := make([]tool.Answer, len(qs))
	for i, q := range qs {
		var a mcp.InputResponse
		var err error
		switch r := inputRequest(q).(type) {
		case *mcp.ElicitParams:
			a, err = c.req.Session.Elicit(ctx, r)
		case *mcp.CreateMessageParams:
			a, err = c.req.Session.CreateMessage(ctx, r)
		case *mcp.ListRootsParams:
			a, err = c.req.Session.ListRoots(ctx, r)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.Kind, err)
		}
		ans, ok, err := answerOf(q.Kind, a)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%s: the answer is %T", q.Kind, a)
		}
		answers[i] = ans
	}
	return answers, nil
}

// inputRequest returns the request that asks q.
func inputRequest(q tool.Question) mcp.InputRequest {
	switch q.Kind {
	case tool.AskModel:
		max := q.MaxTokens
		if max <= 0 {
			max = 1000
		}
		return &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: q.Prompt}}},
			MaxTokens: int64(max),
		}
	case tool.AskRoots:
		return &mcp.ListRootsParams{}
	}
	schema := q.Schema
	if schema == nil {
		schema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	}
	return &mcp.ElicitParams{Message: q.Message, RequestedSchema: schema}
}

// answerOf returns the answer a is to a question of kind k: ok is false
// when a answers another kind of question (the question is asked again),
// and err is set for an answer of the right kind that the tool cannot
// read.
func answerOf(k tool.QuestionKind, a mcp.InputResponse) (ans tool.Answer, ok bool, err error) {
	switch k {
	case tool.AskPerson:
		r, isElicit := a.(*mcp.ElicitResult)
		if !isElicit || r == nil {
			return ans, false, nil
		}
		switch r.Action {
		case "accept", "decline", "cancel":
		default:
			return ans, false, nil
		}
		ans.Elicitation = &tool.Elicitation{Action: r.Action, Content: r.Content}
		return ans, true, nil
	case tool.AskModel:
		var content mcp.Content
		switch r := a.(type) {
		case *mcp.CreateMessageWithToolsResult:
			if r == nil {
				return ans, false, nil
			}
			if len(r.Content) == 1 {
				content = r.Content[0]
			}
		case *mcp.CreateMessageResult:
			if r == nil {
				return ans, false, nil
			}
			content = r.Content
		default:
			return ans, false, nil
		}
		text, isText := content.(*mcp.TextContent)
		if !isText {
			return ans, false, errors.New("sampling: the answer is not one text")
		}
		ans.Text = text.Text
		return ans, true, nil
	case tool.AskRoots:
		r, isRoots := a.(*mcp.ListRootsResult)
		if !isRoots || r == nil {
			return ans, false, nil
		}
		ans.Roots = make([]string, 0, len(r.Roots))
		for _, root := range r.Roots {
			if root != nil {
				ans.Roots = append(ans.Roots, root.URI)
			}
		}
		return ans, true, nil
	}
	return ans, false, nil
}

// Sample asks the client's language model.
func (c *call) Sample(ctx context.Context, prompt string, maxTokens int) (string, error) {
	a, err := c.ask(ctx, []tool.Question{{Kind: tool.AskModel, Prompt: prompt, MaxTokens: maxTokens}}, nil)
	if err != nil {
		return "", err
	}
	return a[0].Text, nil
}

// Elicit asks the client's person.
func (c *call) Elicit(ctx context.Context, message string, requested *jsonschema.Schema) (*tool.Elicitation, error) {
	a, err := c.ask(ctx, []tool.Question{{Kind: tool.AskPerson, Message: message, Schema: requested}}, nil)
	if err != nil {
		return nil, err
	}
	return a[0].Elicitation, nil
}

// Confirm asks the client's person the registry's question: whether t may
// run with the inputs the agent set, sensitive ones left out; only an
// accepted answer confirms. It is asked under the key "confirm".
func (c *call) Confirm(ctx context.Context, t *tool.Tool, question string) (bool, error) {
	a, err := c.ask(ctx, []tool.Question{{Kind: tool.AskPerson, Message: question}}, []string{confirmKey})
	if errors.Is(err, errAsking) {
		return false, nil // the run ends; the client is asked
	}
	if err != nil {
		return false, err
	}
	return a[0].Elicitation.Action == "accept", nil
}

// missingFeature returns the error of a call of a tool that needs what the
// client does not offer ([tool.Tool.Needs]), or nil: a client from protocol
// version 2026-07-28 on gets a JSON-RPC error (MissingRequiredClientCapability
// for sampling, invalid params for logging, whose level such a request sets
// in its _meta), an older one a failed call; the tool does not run.
func (c *call) missingFeature() (*mcp.CallToolResult, error) {
	label := c.tool.Label
	for _, f := range c.tool.Needs {
		switch f {
		case tool.NeedsSampling:
			if c.canSample() {
				continue
			}
			msg := label + " did not run: it asks the client's language model (sampling), which this client does not offer."
			if !c.rounds {
				return errorResult(msg), nil
			}
			data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{
				RequiredCapabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}},
			})
			return nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: msg, Data: data}
		case tool.NeedsLogging:
			if !c.rounds {
				continue
			}
			if level, _ := c.req.Params.Meta[mcp.MetaKeyLogLevel].(string); level != "" {
				continue
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: label +
				" did not run: it sends log messages, which reach a client from protocol version " + newProtocol +
				" on only when the request sets its level in _meta (" + mcp.MetaKeyLogLevel + ")."}
		}
	}
	return nil, nil
}
