package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

// TasksExtension is the name of the MCP tasks extension, under which a
// server with [Options.Tasks] advertises it in its capabilities'
// extensions, and a client declares that it can poll tasks.
const TasksExtension = "io.modelcontextprotocol/tasks"

// maxTaskID is the longest taskId a tasks method accepts: a task's ID is 26
// letters and digits; a longer one is refused before it is looked up or
// repeated in an error.
const maxTaskID = 64

// The methods of the tasks extension.
const (
	methodTasksGet    = "tasks/get"
	methodTasksUpdate = "tasks/update"
	methodTasksCancel = "tasks/cancel"
)

// taskQuestionKey is the key under which a task's question of
// tool.Elicit is asked in its inputRequests when the task gives it no key
// of its own.
const taskQuestionKey = "q"

// taskParams are the parameters of tasks/get, tasks/update and
// tasks/cancel.
type taskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
	// InputResponses are decoded only under the key asked: a response
	// under any other key is ignored, whatever its shape.
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// taskFields are what every answer about a task holds.
type taskFields struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          int64  `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs"`
}

// createTaskResult answers a tools/call that created a task.
type createTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskFields
}

// inputRequiredResult answers a tools/call of a task tool that asks the
// client before its task is created.
type inputRequiredResult struct {
	mcp.ResultBase
	ResultType    string              `json:"resultType"`
	InputRequests mcp.InputRequestMap `json:"inputRequests"`
	RequestState  string              `json:"requestState,omitempty"`
}

// taskError is the protocol error of a task that failed without a result
// of its tool.
type taskError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// detailedTask answers tasks/get: the task, its result once it has one,
// its question while it waits for an answer.
type detailedTask struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskFields
	Result        *mcp.CallToolResult `json:"result,omitempty"`
	Error         *taskError          `json:"error,omitempty"`
	InputRequests mcp.InputRequestMap `json:"inputRequests,omitempty"`
}

// completeCall is a tools/call result answered here rather than by a
// tool's handler, for a client of 2026-07-28 or later: the SDK marks the
// results of handlers "complete", and this marks this one so.
type completeCall struct {
	mcp.ResultBase
	res *mcp.CallToolResult
}

func (c *completeCall) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(c.res)
	if err != nil || len(b) < 2 || b[0] != '{' || bytes.Contains(b, []byte(`"resultType"`)) {
		return b, err
	}
	out := append([]byte(`{"resultType":"complete"`), b[1:]...)
	if len(b) > 2 {
		out = append([]byte(`{"resultType":"complete",`), b[1:]...)
	}
	return out, nil
}

// completed returns res as the answer to cr: marked complete for a client
// of 2026-07-28 or later, as is for an older one.
func completed(cr *mcp.CallToolRequest, res *mcp.CallToolResult) mcp.Result {
	if cr.ProtocolVersion() < newProtocol {
		return res
	}
	return &completeCall{res: res}
}

// ackResult is the empty answer of tasks/update and tasks/cancel.
type ackResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// addTaskMethods makes s's SDK server know the methods of the tasks
// extension; [Server.tasks] answers them.
func (s *Server) addTaskMethods() {
	refuse := func(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*ackResult, error) {
		// Never reached: the tasks middleware answers first.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "tasks are not served"}
	}
	for _, m := range []string{methodTasksGet, methodTasksUpdate, methodTasksCancel} {
		if err := mcp.AddReceivingCustomMethod(s.mcp, m, refuse); err != nil {
			s.logger.Error("adding a tasks method failed", "method", m, "error", err.Error())
		}
	}
}

// tasks is receiving middleware that serves the tasks extension: a
// tools/call of a task tool by a client that can poll creates a task, and
// the tasks methods see, answer and cancel the caller's tasks.
func (s *Server) tasks(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			cr, ok := req.(*mcp.CallToolRequest)
			if !ok || cr.Params == nil {
				return next(ctx, method, req)
			}
			t := s.served(cr.Params.Name)
			if t == nil || t.Task == tool.TaskNever {
				return next(ctx, method, req)
			}
			if !canPoll(cr.ClientCapabilities()) {
				if t.Approver != "" {
					return s.awaitApproval(ctx, t, cr)
				}
				if t.Task == tool.TaskRequired {
					data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{
						RequiredCapabilities: &mcp.ClientCapabilities{Extensions: map[string]any{TasksExtension: map[string]any{}}},
					})
					return nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Data: data,
						Message: t.Label + " did not run: it runs only as a task, and this client does not declare the " + TasksExtension + " extension to poll it."}
				}
				return next(ctx, method, req)
			}
			return s.createTask(ctx, t, cr)
		case methodTasksGet, methodTasksUpdate, methodTasksCancel:
		default:
			return next(ctx, method, req)
		}
		if r, ok := req.(*mcp.ServerRequest[*taskParams]); !ok || !canPoll(r.ClientCapabilities()) {
			data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{
				RequiredCapabilities: &mcp.ClientCapabilities{Extensions: map[string]any{TasksExtension: map[string]any{}}},
			})
			return nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Data: data,
				Message: method + ": the client does not declare the " + TasksExtension + " extension"}
		}
		p, _ := req.GetParams().(*taskParams)
		switch {
		case p == nil || p.TaskID == "":
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: method + ": taskId: required"}
		case len(p.TaskID) > maxTaskID:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: taskId: must be at most %d bytes, got %d", method, maxTaskID, len(p.TaskID))}
		}
		if extra := req.GetExtra(); extra != nil && extra.Header != nil {
			// Mcp-Name, when sent, names the task of the body.
			if names := extra.Header.Values("Mcp-Name"); len(names) > 0 && (len(names) > 1 || names[0] != p.TaskID) {
				return nil, &jsonrpc.Error{Code: mcp.CodeHeaderMismatch, Message: method + ": the Mcp-Name header must be the taskId of the body"}
			}
		}
		ctx = tool.WithAccount(ctx, accountOf(ctx, req.GetExtra()))
		switch method {
		case methodTasksGet:
			return s.getTask(ctx, p.TaskID)
		case methodTasksUpdate:
			return s.updateTask(ctx, p)
		}
		return s.cancelTask(ctx, p.TaskID)
	}
}

// canPoll reports whether a client with caps declares the tasks extension.
func canPoll(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// createTask creates the task of a tools/call of t.
//
// A client from protocol version 2026-07-28 on that can elicit is asked to
// confirm a tool marked Confirm, and the tool's AskFirst questions, in
// input-required rounds of the tools/call itself, as a run in the request
// asks them: the task is created only by the call that brings the answers
// with its request state, the answers go into the task, and its run does
// not ask again. An older client is asked inside the task.
func (s *Server) createTask(ctx context.Context, t *tool.Tool, cr *mcp.CallToolRequest) (mcp.Result, error) {
	acct := accountOf(ctx, cr.Extra)
	ctx = tool.WithAccount(ctx, acct)
	var c *call
	if cr.ProtocolVersion() >= newProtocol {
		c = &call{req: cr, tool: t, rounds: true}
		answers, err := s.answers(ctx, t.ID, acct.AccountID(), cr.Params, c.argsDigest)
		if err != nil {
			s.logger.Warn("answers of a call refused", "tool", t.ID, "account", acct.AccountID(), "reason", err.Error())
			if errors.Is(err, ErrTooManyStates) || errors.Is(err, errStateUnchecked) {
				return errorResult(refusal(t, err)), nil
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: refusal(t, err)}
		}
		c.answers = answers
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		c.stop = cancel
		if c.canElicit() {
			ctx = tool.WithConfirmer(ctx, c)
			// The tool's AskFirst questions, asked in the same rounds.
			ctx = tool.WithClient(ctx, c)
		}
	}
	tk, err := s.opts.Tasks.Create(ctx, t.ID, cr.Params.Arguments)
	if c != nil {
		if pending, used := c.asked(); pending != nil {
			// The confirmation is asked: no task yet.
			state, err := s.signState(t.ID, c.argsDigest(), acct.AccountID(), used, pending)
			if err != nil {
				s.logger.Error("request state does not marshal to JSON", "tool", t.ID, "error", err.Error())
				return errorResult(t.Label + " did not run: its task could not be created."), nil
			}
			return &inputRequiredResult{ResultType: "input_required", InputRequests: pending, RequestState: state}, nil
		}
	}
	if err != nil {
		return s.notCreated(t, cr, acct, err)
	}
	return &createTaskResult{ResultType: "task", taskFields: fieldsOf(tk)}, nil
}

// notCreated answers a tools/call of t whose task was not created.
func (s *Server) notCreated(t *tool.Tool, cr *mcp.CallToolRequest, acct tool.Account, err error) (mcp.Result, error) {
	var refused *task.RefusedError
	switch {
	case errors.As(err, &refused):
		e := s.entry(t.ID)
		if e == nil {
			return completed(cr, errorResult(refused.Result.Message)), nil
		}
		return completed(cr, failure(e, refused.Result)), nil
	case errors.Is(err, tool.ErrNotFound):
		return nil, unknownTool(cr.Params.Name)
	}
	s.logger.Error("creating a task failed", "tool", t.ID, "account", acct.AccountID(), "error", err.Error())
	return completed(cr, errorResult(t.Label+" did not run: its task could not be created.")), nil
}

// awaitApproval answers a tools/call of t, a tool with an approver, by a
// client that cannot poll a task. The call's task is created all the
// same: when it waits for approval, the answer is an error result that
// says so and gives the task's ID, for a person to follow elsewhere (the
// call did not run, and will only once approved); when it needs none (a
// standing approval covers it, or the tool's confirm method picks no
// approval) the call waits for its task and answers as a run would.
func (s *Server) awaitApproval(ctx context.Context, t *tool.Tool, cr *mcp.CallToolRequest) (mcp.Result, error) {
	acct := accountOf(ctx, cr.Extra)
	ctx = tool.WithAccount(ctx, acct)
	tk, err := s.opts.Tasks.Create(ctx, t.ID, cr.Params.Arguments)
	if err != nil {
		return s.notCreated(t, cr, acct, err)
	}
	if tk.StatusMessage == task.AwaitingApproval {
		return completed(cr, errorResult(fmt.Sprintf("%s has not run: it waits for the approval of an account with the permission %q, and runs once approved. "+
			"Its task is %s; this client cannot follow tasks, so follow it in the application (its Tool Explorer shows it at /tasks/%s).",
			t.Label, t.Approver, tk.ID, tk.ID))), nil
	}
	id := tk.ID
	tk, err = s.opts.Tasks.Wait(ctx, id)
	if err != nil || !tk.Status.Finished() || tk.Result == nil {
		if err != nil && ctx.Err() == nil {
			s.logger.Error("waiting for a task failed", "tool", t.ID, "error", err.Error())
		}
		return completed(cr, errorResult(fmt.Sprintf("%s is running as task %s and has not ended yet.", t.Label, id))), nil
	}
	if e := s.entry(t.ID); e != nil {
		return completed(cr, s.result(e, tk.Result)), nil
	}
	return completed(cr, errorResult(tk.Result.Message)), nil
}

// fieldsOf returns what every answer says of tk.
func fieldsOf(tk *task.Task) taskFields {
	status, msg := string(tk.Status), tk.StatusMessage
	if tk.Status == task.Failed && !tk.Internal() {
		// The tool ran and reported its failure (or its run was refused,
		// as a direct call would have been): the task completed, and its
		// result, an error, says how. Failed is kept for what the tool did
		// not say: a panic, an internal error, an interruption.
		status = string(task.Completed)
	}
	ttl := tk.Expires.Sub(tk.Created)
	if tk.Status.Finished() {
		ttl = tk.Expires.Sub(tk.Updated)
	}
	return taskFields{
		TaskID:         tk.ID,
		Status:         status,
		StatusMessage:  msg,
		CreatedAt:      tk.Created.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt:  tk.Updated.UTC().Format(time.RFC3339Nano),
		TTLMs:          max(ttl.Milliseconds(), 0),
		PollIntervalMs: tk.PollInterval.Milliseconds(),
	}
}

// taskErr is the protocol error of a tasks method that err refused.
func (s *Server) taskErr(method, id string, err error) error {
	switch {
	case errors.Is(err, task.ErrNotFound):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: taskId: no task %q", method, id)}
	case errors.Is(err, task.ErrNotWaiting):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: task %q is not waiting for an answer", method, id)}
	case errors.Is(err, task.ErrBadAnswer):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: inputResponses: the answer does not answer the question of task %q: %v", method, id, err)}
	}
	s.logger.Error("a tasks method failed", "method", method, "task", id, "error", err.Error())
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: method + ": the task could not be read or changed; try again later"}
}

// getTask answers tasks/get.
func (s *Server) getTask(ctx context.Context, id string) (mcp.Result, error) {
	tk, err := s.opts.Tasks.Get(ctx, id)
	if err != nil {
		return nil, s.taskErr(methodTasksGet, id, err)
	}
	d := &detailedTask{ResultType: "complete", taskFields: fieldsOf(tk)}
	switch {
	case tk.Status == task.InputRequired && len(tk.Questions) > 0:
		d.InputRequests = make(mcp.InputRequestMap, len(tk.Questions))
		for _, q := range tk.Questions {
			d.InputRequests[questionKeyOf(q)] = inputRequest(tool.Question{Kind: tool.AskPerson, Message: q.Message, Schema: q.Schema})
		}
	case d.Status == string(task.Failed):
		// The result's message of an internal failure is generic ("LABEL
		// failed.", "... was interrupted ..."); its cause is only logged.
		msg := "the task failed"
		if tk.Result != nil && tk.Result.Message != "" {
			msg = tk.Result.Message
		} else if tk.StatusMessage != "" {
			msg += ": " + tk.StatusMessage
		}
		d.Error = &taskError{Code: jsonrpc.CodeInternalError, Message: msg}
	case tk.Result != nil:
		if e := s.entry(tk.Tool); e != nil {
			d.Result = s.result(e, tk.Result)
		} else if tk.Result.Success {
			d.Result = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tk.Result.Message}}}
		} else {
			d.Result = errorResult(tk.Result.Message)
		}
	}
	return d, nil
}

// questionKeyOf is the key under which a task's question is asked.
func questionKeyOf(q *task.Question) string {
	switch {
	case q.Key != "":
		return q.Key
	case q.Confirm:
		return confirmKey
	}
	return taskQuestionKey
}

// updateTask answers tasks/update: answers to the task's questions, all
// or some of them. The shape of every response under a key asked is
// checked before any is stored; each is then checked against its
// question's schema as it is stored, in the order asked. Responses under
// other keys are ignored.
func (s *Server) updateTask(ctx context.Context, p *taskParams) (mcp.Result, error) {
	tk, err := s.opts.Tasks.Get(ctx, p.TaskID)
	if err != nil {
		return nil, s.taskErr(methodTasksUpdate, p.TaskID, err)
	}
	if tk.Status != task.InputRequired || len(tk.Questions) == 0 {
		return nil, s.taskErr(methodTasksUpdate, p.TaskID, task.ErrNotWaiting)
	}
	type answer struct {
		key string
		ans *tool.Elicitation
	}
	var answers []answer
	for _, q := range tk.Questions {
		key := questionKeyOf(q)
		resp, ok := p.InputResponses[key]
		if !ok {
			continue
		}
		ans, ok := elicitationOf(key, resp)
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("tasks/update: inputResponses: %q must be an elicitation result whose action is accept, decline or cancel", key)}
		}
		answers = append(answers, answer{q.Key, ans})
	}
	// Responses to what was not asked are ignored: the task still waits,
	// and tasks/get still asks.
	for _, a := range answers {
		if err := s.opts.Tasks.AnswerKey(ctx, p.TaskID, a.key, a.ans); err != nil {
			return nil, s.taskErr(methodTasksUpdate, p.TaskID, err)
		}
	}
	return &ackResult{ResultType: "complete"}, nil
}

// elicitationOf decodes raw, the response under key, as the answer of a
// person; ok is false for anything else.
func elicitationOf(key string, raw json.RawMessage) (*tool.Elicitation, bool) {
	b, err := json.Marshal(map[string]json.RawMessage{key: raw})
	if err != nil {
		return nil, false
	}
	var m mcp.InputResponseMap
	if err := json.Unmarshal(b, &m); err != nil || m[key] == nil {
		return nil, false
	}
	ans, ok, err := answerOf(tool.AskPerson, m[key])
	if err != nil || !ok {
		return nil, false
	}
	return ans.Elicitation, true
}

// cancelTask answers tasks/cancel. Cancelling a task that has ended is
// acknowledged as well: it stays as it ended.
func (s *Server) cancelTask(ctx context.Context, id string) (mcp.Result, error) {
	if _, err := s.opts.Tasks.Cancel(ctx, id); err != nil && !errors.Is(err, task.ErrFinished) {
		return nil, s.taskErr(methodTasksCancel, id, err)
	}
	return &ackResult{ResultType: "complete"}, nil
}
