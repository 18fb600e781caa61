package host

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Long calls as tasks (docs/mcp.md#long-calls-as-tasks): the MCP tasks extension
// (SEP-2663). To a tools/call of a tool that can run long, from a client whose request
// declares the extension, the host answers at once with a task (resultType "task"),
// runs the call as it would have, and serves tasks/get (status, then the result the call
// would have returned), tasks/update (nothing to update: w365 asks no input) and
// tasks/cancel. Every other call, and every call of a client without the extension, is
// answered as before, with progress notifications where it asked for them.
const (
	// TasksExtension is the extension's identifier in capabilities.
	TasksExtension = "io.modelcontextprotocol/tasks"
	// taskTTL is how long a finished task stays after its last change.
	taskTTL = 15 * time.Minute
	// taskKept bounds the finished tasks kept: past it the oldest go first.
	taskKept = 1024
	// taskPoll is the polling interval suggested to clients.
	taskPoll = 500 * time.Millisecond
	// codeMissingCapability is MCP's Missing Required Client Capability error code.
	codeMissingCapability = -32021
)

// taskTools are the tools offered as tasks: those whose calls wait on the world (browser
// waits and navigations, shell and Python, page code), OCR of a whole screen, and batches.
var taskTools = map[string]bool{
	"execute_shell_command": true, "execute_python_code": true, "wait_milliseconds": true,
	"browser_wait_for": true, "browser_navigate": true, "browser_run_code": true,
	"browser_execute_batch": true, "analyze_screen": true, "find_ui_element": true,
}

// Task states (SEP-2663).
const (
	taskWorking   = "working"
	taskCompleted = "completed"
	taskFailed    = "failed"
	taskCancelled = "cancelled"
)

// task is one call run as a task, visible to the principal that made it only.
type task struct {
	id        string
	owner     string
	created   time.Time
	updated   time.Time
	status    string
	phase     string
	result    json.RawMessage // the CallToolResult, once completed
	err       *jsonrpc.Error  // once failed
	cancel    context.CancelFunc
	cancelled bool
}

// taskStore holds the host's tasks by id.
type taskStore struct {
	mu   sync.Mutex
	byID map[string]*task
}

// taskWire is a task as tasks/get and a CreateTaskResult show it.
type taskWire struct {
	mcp.ResultBase
	ResultType     string          `json:"resultType"`
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          *int64          `json:"ttlMs"`
	PollIntervalMs int64           `json:"pollIntervalMs"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *jsonrpc.Error  `json:"error,omitempty"`
}

// TaskParams are the parameters of tasks/get, tasks/update and tasks/cancel.
type TaskParams struct {
	mcp.ParamsBase
	TaskID         string         `json:"taskId"`
	InputResponses map[string]any `json:"inputResponses,omitempty"`
}

// ackResult is the empty acknowledgement of tasks/update and tasks/cancel.
type ackResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// wire is t as the client sees it, with resultType rt; the caller holds the store's lock.
func (t *task) wire(rt string) *taskWire {
	w := &taskWire{ResultType: rt, TaskID: t.id, Status: t.status, StatusMessage: t.phase,
		CreatedAt: t.created.UTC().Format(time.RFC3339Nano), LastUpdatedAt: t.updated.UTC().Format(time.RFC3339Nano),
		PollIntervalMs: taskPoll.Milliseconds(), Result: t.result, Error: t.err}
	if t.status != taskWorking {
		ttl := t.updated.Add(taskTTL).Sub(t.created).Milliseconds()
		w.TTLMs = &ttl
	}
	return w
}

// stop cancels t's call if it is still running: the task then ends cancelled. The caller
// holds the store's lock.
func (t *task) stop() {
	if t.status == taskWorking {
		t.cancelled = true
		t.cancel()
	}
}

// pruneLocked drops the finished tasks whose time is up and, past taskKept finished
// tasks, the oldest finished.
func (st *taskStore) pruneLocked(now time.Time) {
	var finished []*task
	for id, t := range st.byID {
		switch {
		case t.status == taskWorking:
		case now.Sub(t.updated) > taskTTL:
			delete(st.byID, id)
		default:
			finished = append(finished, t)
		}
	}
	if len(finished) > taskKept {
		slices.SortFunc(finished, func(a, b *task) int { return a.updated.Compare(b.updated) })
		for _, t := range finished[:len(finished)-taskKept] {
			delete(st.byID, t.id)
		}
	}
}

// start runs call as a task of owner and returns the task's first state. The task's id
// begins with route, the host's route name, so that the chart's router sends the tasks/
// requests naming it (in Mcp-Name) to this host.
func (st *taskStore) start(ctx context.Context, owner, route string, call func(context.Context) (mcp.Result, error)) *taskWire {
	now := time.Now()
	// The call outlives the request that started it: only tasks/cancel ends it early.
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	t := &task{id: route + "t-" + randomHex(16), owner: owner, created: now, updated: now, status: taskWorking,
		phase: "starting", cancel: cancel}
	ctx = withTaskPhase(ctx, func(phase string) {
		st.mu.Lock()
		if t.status == taskWorking {
			t.phase, t.updated = phase, time.Now()
		}
		st.mu.Unlock()
	})
	st.mu.Lock()
	if st.byID == nil {
		st.byID = map[string]*task{}
	}
	st.pruneLocked(now)
	st.byID[t.id] = t
	first := t.wire("task")
	st.mu.Unlock()
	go func() {
		defer cancel()
		res, err := call(ctx)
		var raw json.RawMessage
		if err == nil {
			raw, err = json.Marshal(res)
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		t.updated, t.phase = time.Now(), ""
		var je *jsonrpc.Error
		switch {
		case t.cancelled:
			t.status, t.phase = taskCancelled, "cancelled by the client"
		case err == nil:
			t.status, t.result = taskCompleted, raw
		case errors.As(err, &je):
			t.status, t.err = taskFailed, je
		default:
			t.status, t.err = taskFailed, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
	}()
	return first
}

// get is the task id of owner; an unknown id and another principal's task are alike.
// The caller holds the store's lock.
func (st *taskStore) get(id, owner string) (*task, error) {
	st.pruneLocked(time.Now())
	t, ok := st.byID[id]
	if !ok || t.owner != owner {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no task " + id}
	}
	return t, nil
}

// taskMiddleware answers a long tools/call of a client declaring the extension with a
// task, and gives the handlers of tasks/get, tasks/update and tasks/cancel (addTaskMethods)
// the request's principal, refusing a client that does not declare the extension.
func (h *Host) taskMiddleware(remote bool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "tools/call":
				cr, ok := req.(*mcp.CallToolRequest)
				if !ok || cr.Params == nil || !taskTools[cr.Params.Name] || !declaresTasks(cr.ClientCapabilities()) {
					return next(ctx, method, req)
				}
				owner := h.principalOf(cr.Extra, remote).name
				// No progress for a task (SEP-2663): its request is answered already, and
				// tasks/get names the call's phase instead.
				delete(cr.Params.Meta, "progressToken")
				route := ""
				if n := h.routeName.Load(); n != nil {
					route = *n + "."
				}
				return h.tasks.start(ctx, owner, route, func(ctx context.Context) (mcp.Result, error) {
					return next(ctx, method, req)
				}), nil
			case "tasks/get", "tasks/update", "tasks/cancel":
				sr, ok := req.(*mcp.ServerRequest[*TaskParams])
				if !ok || !declaresTasks(sr.ClientCapabilities()) {
					return nil, &jsonrpc.Error{Code: codeMissingCapability, Message: "Missing required client capability",
						Data: json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + TasksExtension + `":{}}}}`)}
				}
				ctx = context.WithValue(ctx, taskOwnerKey{}, h.principalOf(sr.Extra, remote).name)
			}
			return next(ctx, method, req)
		}
	}
}

type taskOwnerKey struct{}

// lookup is the task p names, of the principal taskMiddleware put in ctx; the caller
// holds the store's lock.
func (st *taskStore) lookup(ctx context.Context, p *TaskParams) (*task, error) {
	owner, ok := ctx.Value(taskOwnerKey{}).(string)
	if !ok || p == nil || p.TaskID == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "taskId is required"}
	}
	return st.get(p.TaskID, owner)
}

// addTaskMethods registers the extension's methods with s.
func (h *Host) addTaskMethods(s *mcp.Server) {
	st := &h.tasks
	must(mcp.AddReceivingCustomMethod(s, "tasks/get", func(ctx context.Context, _ *mcp.ServerSession, p *TaskParams) (*taskWire, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		t, err := st.lookup(ctx, p)
		if err != nil {
			return nil, err
		}
		return t.wire("complete"), nil
	}))
	must(mcp.AddReceivingCustomMethod(s, "tasks/cancel", func(ctx context.Context, _ *mcp.ServerSession, p *TaskParams) (*ackResult, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		t, err := st.lookup(ctx, p)
		if err != nil {
			return nil, err
		}
		t.stop()
		return &ackResult{ResultType: "complete"}, nil
	}))
	// w365's tasks never ask for input: an update has nothing outstanding to answer.
	must(mcp.AddReceivingCustomMethod(s, "tasks/update", func(ctx context.Context, _ *mcp.ServerSession, p *TaskParams) (*ackResult, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		if _, err := st.lookup(ctx, p); err != nil {
			return nil, err
		}
		return &ackResult{ResultType: "complete"}, nil
	}))
}

// must panics on a registration error: a method name the SDK calls standard is a bug here.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// declaresTasks says whether capabilities declare the tasks extension.
func declaresTasks(c *mcp.ClientCapabilities) bool {
	if c == nil {
		return false
	}
	_, ok := c.Extensions[TasksExtension]
	return ok
}

type taskPhaseKey struct{}

// withTaskPhase makes ctx report the phases of a call (what startProgress names) to set.
func withTaskPhase(ctx context.Context, set func(string)) context.Context {
	return context.WithValue(ctx, taskPhaseKey{}, set)
}

// taskPhase is the phase sink of ctx's task, nil outside one.
func taskPhase(ctx context.Context) func(string) {
	set, _ := ctx.Value(taskPhaseKey{}).(func(string))
	return set
}
